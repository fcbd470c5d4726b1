import deepspeed
import torch

from ds_utils import zero3_config

model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(4)])
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=zero3_config())
for _ in range(10):
    engine.backward(engine(torch.randn(1, 4096, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
