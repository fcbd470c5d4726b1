import argparse

import deepspeed
import torch

import config_builder

p = argparse.ArgumentParser()
p.add_argument("--micro_batch", type=int, default=8)
p.add_argument("--grad_accum", type=int, default=4)
p.add_argument("--lr", type=float, default=1e-4)
p.add_argument("--local_rank", type=int, default=-1)
args = p.parse_args()

model = torch.nn.Linear(1024, 1024)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config_builder.build(args))
for _ in range(10):
    loss = engine(torch.randn(8, 1024, device=engine.device, dtype=torch.half)).float().sum()
    engine.backward(loss)
    engine.step()
