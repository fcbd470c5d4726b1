"""Writes the DeepSpeed config the pretraining job reads."""
import argparse
import json
import os

parser = argparse.ArgumentParser()
parser.add_argument("--micro", type=int, default=4)
parser.add_argument("--accum", type=int, default=2)
parser.add_argument("--out", default="build/ds.json")
args = parser.parse_args()

config = {
    "train_batch_size": 32,
    "train_micro_batch_size_per_gpu": args.micro,
    "gradient_accumulation_steps": args.accum,
    "bf16": {"enabled": True},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "weight_decay": 0.1}},
    "zero_optimization": {"stage": 2, "overlap_comm": True},
}
os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "w") as f:
    json.dump(config, f, indent=2)
