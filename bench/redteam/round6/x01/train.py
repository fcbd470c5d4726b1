import argparse

import deepspeed
import torch
from torch.utils.data import TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
data = TensorDataset(torch.randn(4096, 512), torch.randint(0, 10, (4096,)))
engine, _, loader, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters(),
                                            training_data=data)
for x, y in loader:
    x, y = x.to(engine.device), y.to(engine.device)
    loss = torch.nn.functional.cross_entropy(engine(x), y)
    engine.backward(loss)
    engine.step()
