import deepspeed
import torch
from ds_cfg import CONFIG


def main():
    deepspeed.init_distributed()
    model = torch.nn.Linear(512, 512)
    engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=CONFIG)
    for step in range(100):
        x = torch.randn(4, 512, device=engine.device)
        loss = engine(x).pow(2).mean()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
