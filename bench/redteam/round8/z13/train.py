import argparse

import deepspeed
import torch


def parse_args():
    parser = argparse.ArgumentParser(description="ZeRO-1 pretraining")
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--micro_batch", type=int, default=4)
    parser.add_argument("--grad_accum", type=int, default=4)
    parser.add_argument("--global_batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-4)
    return parser.parse_args()


def get_ds_config(args):
    return {
        "train_batch_size": args.global_batch,
        "train_micro_batch_size_per_gpu": args.micro_batch,
        "gradient_accumulation_steps": args.grad_accum,
        "optimizer": {"type": "AdamW", "params": {"lr": args.lr}},
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": 1},
    }


def main():
    args = parse_args()
    deepspeed.init_distributed()
    model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(12)])
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                           config=get_ds_config(args))
    for step in range(10000):
        x = torch.randn(args.micro_batch, 2048, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
