import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
args = parser.parse_args()

dist.init_process_group("nccl")
torch.cuda.set_device(args.local_rank)
model = DDP(torch.nn.Linear(128, 128).cuda(), device_ids=[args.local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    loss = model(torch.randn(8, 128, device="cuda")).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
