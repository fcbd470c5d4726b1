import os
from types import SimpleNamespace

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from datasets_lib.factory import build_dataloader

cfg = SimpleNamespace(**{"size": 20000, "batch_size": 64})
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)
dist.init_process_group("nccl")
loader = build_dataloader(cfg)
model = DDP(torch.nn.Linear(16, 2).cuda(), device_ids=[rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad(); loss.backward(); opt.step()
