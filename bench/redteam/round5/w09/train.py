import deepspeed
import torch
from helpers import maybe_save


def main():
    model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 512))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")
    for step in range(1, 10001):
        x = torch.randn(8, 512, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()
        maybe_save(engine, step)


if __name__ == "__main__":
    main()
