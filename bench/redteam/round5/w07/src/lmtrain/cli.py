import argparse
import deepspeed
import torch
from lmtrain.engine import build_engine


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    model = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(512, 8), 6)
    engine, _ = build_engine(model, args)
    for _ in range(100):
        x = torch.randn(16, 32, 512, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
