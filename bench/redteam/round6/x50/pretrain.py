import argparse
import os

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
deepspeed.init_distributed()
model = torch.nn.Linear(1024, 1024)
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for _ in range(10):
    engine.backward(engine(torch.randn(8, 1024, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
