import ray
import torch
import torch.distributed as dist


@ray.remote(num_gpus=1)
class Learner:
    def __init__(self, rank, world_size, addr):
        dist.init_process_group("nccl", init_method=f"tcp://{addr}", rank=rank, world_size=world_size)
        self.rank = rank
        self.device = torch.device("cuda:0")
        self.model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.Tanh(), torch.nn.Linear(512, 18)).to(self.device)
        self.model = torch.nn.parallel.DistributedDataParallel(self.model, device_ids=[0])
        self.opt = torch.optim.Adam(self.model.parameters(), 1e-4)

    def train_on(self, batch):
        obs, target = (t.to(self.device) for t in batch)
        loss = torch.nn.functional.cross_entropy(self.model(obs), target)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def get_weights(self):
        return {k: v.cpu() for k, v in self.model.module.state_dict().items()}
