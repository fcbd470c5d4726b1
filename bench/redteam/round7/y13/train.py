import argparse

import deepspeed
import torch
from omegaconf import OmegaConf

p = argparse.ArgumentParser()
p.add_argument("--config", default="conf/train.yaml")
p.add_argument("--local_rank", type=int, default=-1)
args = p.parse_args()
cfg = OmegaConf.load(args.config)
ds_config = OmegaConf.to_container(cfg.ds, resolve=True)
model = torch.nn.Linear(cfg.model.width, cfg.model.width)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
for _ in range(10):
    loss = engine(torch.randn(4, cfg.model.width, device=engine.device)).sum()
    engine.backward(loss); engine.step()
