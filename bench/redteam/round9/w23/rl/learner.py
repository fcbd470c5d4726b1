import socket

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class PolicyNet(nn.Module):
    def __init__(self, obs_dim=376, act_dim=17, hidden=1024):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.mu = nn.Linear(hidden, act_dim)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.mu(h), self.value(h).squeeze(-1)


class Learner:
    def __init__(self, rank, world_size):
        self.rank = rank
        self.world_size = world_size
        self.device = torch.device("cuda:0")

    def address(self):
        with socket.socket() as s:
            s.bind(("", 0))
            return socket.gethostbyname(socket.gethostname()), s.getsockname()[1]

    def setup(self, master_addr, master_port):
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", init_method=f"tcp://{master_addr}:{master_port}",
                                rank=self.rank, world_size=self.world_size)
        self.model = DDP(PolicyNet().to(self.device), device_ids=[0])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=3e-4)
        return self.rank

    def update(self, batch):
        obs, actions, returns = (torch.as_tensor(t, device=self.device) for t in batch)
        for _ in range(4):
            mu, value = self.model(obs)
            loss = F.mse_loss(mu, actions) + 0.5 * F.mse_loss(value, returns)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()
