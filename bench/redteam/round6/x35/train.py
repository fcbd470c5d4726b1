import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from dist_cfg import DistConfig

cfg = DistConfig()
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group(cfg.backend, init_method=f"tcp://{cfg.host}:{cfg.port}",
                        rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
model = DDP(torch.nn.Linear(16, 16).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    loss = model(torch.randn(4, 16, device="cuda")).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
