import deepspeed
import torch


def main():
    deepspeed.init_distributed()
    model = torch.nn.Linear(1024, 1024)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    for _ in range(100):
        engine.backward(engine(torch.randn(4, 1024, device=engine.device)).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
