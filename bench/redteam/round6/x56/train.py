import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from distill import Distiller

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
teacher = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 100)).cuda()
teacher.load_state_dict(torch.load("teacher.pt", map_location="cuda"))
student = DDP(torch.nn.Linear(512, 100).cuda(), device_ids=[local_rank])
d = Distiller(student, teacher, torch.optim.AdamW(student.parameters(), lr=1e-3))
for _ in range(1000):
    d.step(torch.randn(64, 512, device="cuda"), torch.randint(0, 100, (64,), device="cuda"))
