import argparse

import deepspeed
import torch

from utils.dist import is_main_process

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser.add_argument("--save_every", type=int, default=1000)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(6)])
engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for step in range(1, 10001):
    x = torch.randn(4, 1024, device=engine.device, dtype=torch.bfloat16)
    loss = engine(x).float().pow(2).mean()
    engine.backward(loss)
    engine.step()
    if is_main_process() and step % args.save_every == 0:
        engine.save_checkpoint("checkpoints", tag=f"step{step}")
