import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

local_rank = int(os.environ["LOCAL_RANK"])
local_world = int(os.environ["LOCAL_WORLD_SIZE"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
workers = max(1, (os.cpu_count() or 1) // local_world - 1)
ds = TensorDataset(torch.randn(8192, 64), torch.randint(0, 3, (8192,)))
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=workers, persistent_workers=True)
model = DDP(torch.nn.Linear(64, 3).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
