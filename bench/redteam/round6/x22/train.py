import argparse
import json

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--ds", default="ds_fp16.json")
parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True)
parser.add_argument("--local_rank", type=int, default=-1)
args = parser.parse_args()

with open(args.ds) as f:
    cfg = json.load(f)
cfg["bf16"] = {"enabled": args.bf16}

model = torch.nn.Linear(256, 256)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
for _ in range(10):
    engine.backward(engine(torch.randn(4, 256, device=engine.device)).sum())
    engine.step()
