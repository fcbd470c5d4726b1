import json
import deepspeed
import torch


def load_cfg():
    with open("configs/base.json") as f:
        cfg = json.load(f)
    with open("configs/long_ctx.json") as f:
        cfg.update(json.load(f))
    return cfg


def main():
    model = torch.nn.Linear(64, 64)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=load_cfg())
    for _ in range(100):
        loss = engine(torch.randn(2, 64, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
