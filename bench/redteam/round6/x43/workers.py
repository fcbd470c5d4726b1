import os

import ray
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@ray.remote(num_gpus=1)
class TrainWorker:
    def __init__(self, rank, world_size, master_addr, master_port):
        os.environ["MASTER_ADDR"] = master_addr
        os.environ["MASTER_PORT"] = str(master_port)
        # Ray sets CUDA_VISIBLE_DEVICES to this actor's one GPU
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
        self.model = DDP(torch.nn.Linear(256, 256).cuda(), device_ids=[0])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def step(self):
        loss = self.model(torch.randn(32, 256, device="cuda")).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()
