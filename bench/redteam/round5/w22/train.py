import deepspeed
import torch


def main():
    deepspeed.init_distributed()
    model = torch.nn.Linear(256, 256)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")
    for _ in range(100):
        x = torch.randn(8, 256, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
