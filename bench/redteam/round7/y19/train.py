import deepspeed
import torch

model = torch.nn.Linear(1024, 1024)
from optim import make_optimizer

engine, _, _, _ = deepspeed.initialize(model=model, optimizer=make_optimizer(model.parameters()), config="ds.json")
for _ in range(10):
    loss = engine(torch.randn(4, 1024, device=engine.device)).sum()
    engine.backward(loss); engine.step()
