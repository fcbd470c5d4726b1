import argparse

import deepspeed
import torch

from steps import train_step

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

net = torch.nn.Linear(1024, 1024)
model_engine, optimizer, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())
for _ in range(100):
    batch = torch.randn(8, 1024, device=model_engine.device, dtype=torch.half)
    train_step(model_engine, optimizer, batch)
