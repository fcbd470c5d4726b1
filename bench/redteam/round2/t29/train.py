import deepspeed
import torch

from builders import build_engine


def main():
    deepspeed.init_distributed()
    engine = build_engine(torch.nn.Linear(1024, 1024), "ds.json")
    for step in range(1000):
        x = torch.randn(8, 1024, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
