import deepspeed
import torch

model = torch.nn.Linear(1024, 1024)
from ds_presets import build

engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=build("bf16"))
for _ in range(10):
    loss = engine(torch.randn(4, 1024, device=engine.device)).sum()
    engine.backward(loss); engine.step()
