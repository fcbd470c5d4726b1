import argparse

import deepspeed
import torch

from config import make_ds_config

p = argparse.ArgumentParser()
p.add_argument("--micro-bs", default="4")
p.add_argument("--local_rank", type=int, default=-1)
args = p.parse_args()
model = torch.nn.Linear(64, 64)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=make_ds_config(args))
for _ in range(10):
    loss = engine(torch.randn(8, 64, device=engine.device)).sum()
    engine.backward(loss); engine.step()
