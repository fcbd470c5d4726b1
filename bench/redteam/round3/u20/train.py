import argparse

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--per_device_train_batch_size", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    model = torch.nn.Linear(1024, 1024)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for _ in range(50):
        x = torch.randn(args.per_device_train_batch_size, 1024, device=engine.device, dtype=torch.bfloat16)
        loss = engine(x).float().sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
