import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_loader

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
loader = build_loader(dist.get_rank(), dist.get_world_size())
model = DDP(torch.nn.Embedding(50000, 256).cuda(), device_ids=[local_rank])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for batch in loader:
    loss = model(batch["input_ids"].cuda()).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
