import argparse

import deepspeed
import torch

from configs import DS_CONFIG
from model import GPT


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = GPT(n_layer=12, n_embd=768)
    engine, _, loader, _ = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config=DS_CONFIG,
        training_data=torch.load(args.data, map_location="cpu"),
    )
    for step, batch in enumerate(loader):
        loss = engine(batch)
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
