import argparse

import deepspeed
import torch

from data import build_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    model = torch.nn.Linear(64, 1)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    loader = build_loader(engine.train_micro_batch_size_per_gpu())
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(engine.device), y.to(engine.device)
            loss = torch.nn.functional.mse_loss(engine(x), y)
            engine.backward(loss)
            engine.step()


if __name__ == "__main__":
    main()
