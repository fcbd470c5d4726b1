import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import Evaluator

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
train_ds = TensorDataset(torch.randn(4096, 128), torch.randint(0, 5, (4096,)))
val_ds = TensorDataset(torch.randn(1024, 128), torch.randint(0, 5, (1024,)))
sampler = DistributedSampler(train_ds)
loader = DataLoader(train_ds, batch_size=64, sampler=sampler)
model = DDP(torch.nn.Linear(128, 5).cuda(), device_ids=[local_rank])
evaluator = Evaluator(model, DataLoader(val_ds, batch_size=256))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(evaluator.evaluate())
