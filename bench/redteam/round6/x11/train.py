import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from config import DataConfig
from data.factory import build_train_loader

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
cfg = DataConfig()
loader = build_train_loader(cfg)
model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 10)).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(90):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
