import json
import os
import deepspeed
import torch


def main():
    world = int(os.environ["WORLD_SIZE"])
    with open("configs/ds.json") as f:
        cfg = json.load(f)
    cfg["train_batch_size"] = cfg["train_micro_batch_size_per_gpu"] * cfg["gradient_accumulation_steps"] * world
    model = torch.nn.Linear(64, 64)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    for _ in range(100):
        loss = engine(torch.randn(4, 64, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
