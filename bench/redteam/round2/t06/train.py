import argparse

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(1024, 16), num_layers=24)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for step in range(1000):
        x = torch.randn(4, 128, 1024, device=engine.device)
        loss = engine(x).pow(2).mean()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
