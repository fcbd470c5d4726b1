import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import train_one_epoch

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
ds = TensorDataset(torch.randn(4096, 64), torch.randint(0, 3, (4096,)))
loader = DataLoader(ds, batch_size=64, sampler=DistributedSampler(ds, shuffle=True), num_workers=4)
model = DDP(torch.nn.Linear(64, 3).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(30):
    train_one_epoch(model, loader, opt, epoch)
