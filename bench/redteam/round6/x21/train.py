import argparse

import deepspeed
import torch
import yaml

parser = argparse.ArgumentParser()
parser.add_argument("--ds_yaml", default="configs/ds.yaml")
parser.add_argument("--local_rank", type=int, default=-1)
args = parser.parse_args()

with open(args.ds_yaml) as f:
    ds_config = yaml.safe_load(f)

model = torch.nn.Linear(512, 512)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
for _ in range(100):
    loss = engine(torch.randn(8, 512, device=engine.device, dtype=torch.bfloat16)).float().sum()
    engine.backward(loss)
    engine.step()
