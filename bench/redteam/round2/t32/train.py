import deepspeed
import torch

from ds_configs import ZERO2


def main():
    model = torch.nn.Linear(4096, 4096)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ZERO2)
    for _ in range(100):
        engine.backward(engine(torch.randn(8, 4096, device=engine.device, dtype=torch.half)).float().mean())
        engine.step()


if __name__ == "__main__":
    main()
