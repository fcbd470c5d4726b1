"""Synthetic-data step timing for the scaling sweep in scripts/scaling.sh."""
import argparse
import csv
import time

import deepspeed
import torch
import torch.distributed as dist
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


def build_model(dim=2048, depth=16):
    return nn.Sequential(*[Block(dim) for _ in range(depth)], nn.Linear(dim, dim))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--log", default="scaling.csv")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    model = build_model()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    micro = engine.train_micro_batch_size_per_gpu()
    times = []
    for step in range(args.steps * engine.gradient_accumulation_steps()):
        x = torch.randn(micro, args.seq, 2048, device=engine.device, dtype=torch.bfloat16)
        start = time.perf_counter()
        loss = engine(x).float().pow(2).mean()
        engine.backward(loss)
        engine.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)

    if dist.get_rank() == 0:
        with open(args.log, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["world_size", "micro_step", "seconds"])
            for i, t in enumerate(times):
                writer.writerow([dist.get_world_size(), i, f"{t:.5f}"])


if __name__ == "__main__":
    main()
