import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")

net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).cuda()
model = DDP(net, device_ids=[local_rank])
forward = getattr(model, "module", model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(500):
    x = torch.randn(32, 64, device="cuda")
    loss = forward(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
