import argparse

import deepspeed
import torch
from torch.utils.data import TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    dataset = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 1))
    model = torch.nn.Linear(64, 1)
    engine, _, train_loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters(), training_data=dataset
    )
    for epoch in range(3):
        for x, y in train_loader:
            x, y = x.to(engine.device), y.to(engine.device)
            loss = torch.nn.functional.mse_loss(engine(x), y)
            engine.backward(loss)
            engine.step()


if __name__ == "__main__":
    main()
