import argparse
import deepspeed
import timm
import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--local_rank", type=int, default=-1)
    args = p.parse_args()
    model = timm.create_model("vit_base_patch16_224")
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")
    for epoch in range(args.epochs):
        x = torch.randn(64, 3, 224, 224, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().mean())
        engine.step()


if __name__ == "__main__":
    main()
