import os

import deepspeed
import torch

deepspeed.init_distributed()
cfg_path = os.environ.get("DS_CONFIG", "ds_config.json")
model = torch.nn.Linear(512, 512)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg_path)
for _ in range(10):
    loss = engine(torch.randn(4, 512, device=engine.device)).sum()
    engine.backward(loss); engine.step()
