import argparse

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)])
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for _ in range(100):
        x = torch.randn(8, 4096, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
