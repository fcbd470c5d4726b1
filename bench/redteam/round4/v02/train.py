import json
import deepspeed
import torch


def main():
    with open("configs/base.json") as f:
        cfg = json.load(f)
    cfg.update({"bf16": {"enabled": True}})
    model = torch.nn.Linear(64, 64)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    for _ in range(10):
        loss = engine(torch.randn(8, 64, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
