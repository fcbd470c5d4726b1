import os
import deepspeed
import torch


def main():
    deepspeed.init_distributed()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = torch.nn.Linear(64, 64)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    for _ in range(100):
        loss = engine(torch.randn(4, 64, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
