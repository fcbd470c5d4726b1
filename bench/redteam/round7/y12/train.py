import argparse
import json

import deepspeed
import torch

p = argparse.ArgumentParser()
p.add_argument("--zero3", action=argparse.BooleanOptionalAction, default=True)
p.add_argument("--local_rank", type=int, default=-1)
args = p.parse_args()
with open("configs/base.json") as fh:
    cfg = json.load(fh)
if args.zero3:
    cfg["zero_optimization"].update(stage=3)
model = torch.nn.Linear(1024, 1024)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
for _ in range(10):
    loss = engine(torch.randn(2, 1024, device=engine.device)).sum()
    engine.backward(loss); engine.step()
if engine.global_rank == 0:
    torch.save(engine.module.state_dict(), "final.pt")
