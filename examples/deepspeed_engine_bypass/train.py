"""A DeepSpeed engine driven like a plain module, after a DDP wrapper it does not need."""
import argparse

import deepspeed
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

net = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1))
model = DDP(net.to(args.local_rank), device_ids=[args.local_rank])
engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=net.parameters())

for step in range(1000):
    x = torch.randn(32, 512, device=engine.device)
    loss = engine(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
