import argparse
import os

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--micro", type=int, default=4)
parser.add_argument("--global_batch", type=int, default=64)
args = parser.parse_args()

ds_config = {
    "train_batch_size": args.global_batch,
    "train_micro_batch_size_per_gpu": args.micro,
    "gradient_accumulation_steps": args.global_batch // (args.micro * int(os.environ["WORLD_SIZE"])),
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
    "zero_optimization": {"stage": 2},
}
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
model = torch.nn.Linear(512, 512)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
for _ in range(10):
    engine.backward(engine(torch.randn(args.micro, 512, device=engine.device)).sum())
    engine.step()
