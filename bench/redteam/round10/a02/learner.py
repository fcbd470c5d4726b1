import socket

import ray
import torch
import torch.distributed as dist
import torch.nn.functional as F

from policy import PolicyNet


class Learner:
    """One data-parallel PPO learner. driver.py runs it as a Ray actor holding one GPU."""

    def __init__(self, lr=2.5e-4, clip=0.2, value_coef=0.5):
        self.device = torch.device("cuda:0")
        self.model = PolicyNet().to(self.device)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=lr, eps=1e-5)
        self.clip = clip
        self.value_coef = value_coef
        self.world_size = 1

    def address(self):
        with socket.socket() as s:
            s.bind(("", 0))
            port = s.getsockname()[1]
        return ray.util.get_node_ip_address(), port

    def join(self, master_addr, master_port, rank, world_size):
        dist.init_process_group("nccl", init_method=f"tcp://{master_addr}:{master_port}",
                                rank=rank, world_size=world_size)
        self.world_size = world_size
        for p in self.model.parameters():
            dist.broadcast(p.data, src=0)

    def update(self, batch):
        obs = batch["obs"].to(self.device)
        actions = batch["actions"].to(self.device)
        old_logp = batch["logp"].to(self.device)
        adv = batch["advantages"].to(self.device)
        returns = batch["returns"].to(self.device)
        logits, values = self.model(obs)
        logp = torch.distributions.Categorical(logits=logits).log_prob(actions)
        ratio = (logp - old_logp).exp()
        surrogate = torch.min(ratio * adv, ratio.clamp(1 - self.clip, 1 + self.clip) * adv)
        loss = -surrogate.mean() + self.value_coef * F.mse_loss(values, returns)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        for p in self.model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= self.world_size
        self.opt.step()
        return loss.item()

    def weights(self):
        return {k: v.cpu() for k, v in self.model.state_dict().items()}
