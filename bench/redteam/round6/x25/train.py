import deepspeed
import torch

from ds_config import DS_CONFIG

with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
    model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(24)])
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
for _ in range(10):
    engine.backward(engine(torch.randn(1, 8192, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
