import argparse
import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()
model = torch.nn.Linear(1024, 1024)
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for _ in range(10):
    engine.backward(engine(torch.randn(8, 1024, device=engine.device)).sum())
    engine.step()
