import argparse

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(16)])
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_offload.json")
    for step in range(args.steps):
        x = torch.randn(2, 4096, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
