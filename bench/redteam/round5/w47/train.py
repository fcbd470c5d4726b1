import argparse
import deepspeed
import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=-1)
    p = deepspeed.add_config_arguments(p)
    args = p.parse_args()
    model = torch.nn.Linear(512, 512)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for _ in range(100):
        engine.backward(engine(torch.randn(4, 512, device=engine.device, dtype=torch.bfloat16)).float().sum())
        engine.step()


if __name__ == "__main__":
    main()
