import os
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@dataclass
class RunConfig:
    local_rank: int = field(default_factory=lambda: int(os.environ.get("LOCAL_RANK", 0)))
    rank: int = field(default_factory=lambda: int(os.environ["SLURM_PROCID"]))
    world: int = field(default_factory=lambda: int(os.environ["SLURM_NTASKS"]))


cfg = RunConfig()
local_rank = cfg.local_rank
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", rank=cfg.rank, world_size=cfg.world)
model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    loss = model(torch.randn(4, 8, device="cuda")).sum()
    opt.zero_grad(); loss.backward(); opt.step()
