import argparse

import deepspeed
import torch

from optim import optimizer_factory

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)])
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters(),
                                  optimizer=optimizer_factory(1e-4))
for _ in range(10):
    engine.backward(engine(torch.randn(4, 2048, device=engine.device)).sum())
    engine.step()
