import json

import deepspeed
import torch


def load_config(path="base.json"):
    with open(path) as f:
        cfg = json.load(f)
    cfg["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] = True
    return cfg


model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(4)])
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=load_config())
for _ in range(10):
    engine.backward(engine(torch.randn(1, 2048, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
engine.save_16bit_model("out")
