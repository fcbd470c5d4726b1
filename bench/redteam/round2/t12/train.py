import argparse

import deepspeed
import torch


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = get_args()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for step in range(500):
        x = torch.randn(8, 1024, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
