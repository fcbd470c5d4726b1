import deepspeed
import torch

from ds_config import get_config

model = torch.nn.Linear(4096, 4096)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=get_config())
for _ in range(10):
    loss = engine(torch.randn(4, 4096, device=engine.device)).sum()
    engine.backward(loss)
    engine.step()
