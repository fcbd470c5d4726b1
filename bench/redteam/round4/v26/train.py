import deepspeed
import torch
from ds_cfg import OFFLOAD


def main():
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    engine, *_ = deepspeed.initialize(model=model, optimizer=opt, config=OFFLOAD)
    for _ in range(100):
        loss = engine(torch.randn(4, 64, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
