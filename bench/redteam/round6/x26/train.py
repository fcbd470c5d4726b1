import argparse

import deepspeed
import torch

from export_utils import export_fp16

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser.add_argument("--output_dir", default="out")
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)])
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for _ in range(100):
    engine.backward(engine(torch.randn(1, 2048, device=engine.device, dtype=torch.bfloat16)).float().sum())
    engine.step()
export_fp16(engine, args.output_dir)
