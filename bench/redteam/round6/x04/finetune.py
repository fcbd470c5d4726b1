import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from models import Backbone

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default=None)
args = parser.parse_args()

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
model = Backbone.from_checkpoint(args.resume) if args.resume else Backbone()
model = DDP(model.cuda(), device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(100):
    loss = model(torch.randn(16, 1024, device="cuda")).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
