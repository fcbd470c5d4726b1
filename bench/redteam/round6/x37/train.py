import argparse
import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()
model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)])
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for _ in range(10):
    engine.backward(engine(torch.randn(2, 4096, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
