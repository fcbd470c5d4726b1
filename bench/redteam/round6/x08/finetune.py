import argparse

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser.add_argument("--deepspeed", default="ds_offload.json")
args = parser.parse_args()

model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)])
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=args.deepspeed)
for step in range(200):
    x = torch.randn(2, 2048, device=engine.device, dtype=torch.bfloat16)
    loss = engine(x).float().pow(2).mean()
    engine.backward(loss)
    engine.step()
