"""Launched with: deepspeed --num_gpus 8 finetune.py --deepspeed_config ds.json

Wrong: every rank loads the checkpoint onto cuda:0, the GPU that saved it (DSL102).
"""
import argparse

import deepspeed
import torch


def build_model(checkpoint):
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
    model.load_state_dict(torch.load(checkpoint))
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--checkpoint", default="pretrained.pt")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = build_model(args.checkpoint)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for _ in range(1000):
        x = torch.randn(8, 1024, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
