import argparse

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/zero3_offload.json")
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(16)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    engine, optimizer, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=args.config)
    for _ in range(100):
        x = torch.randn(4, 4096, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()
    engine.save_16bit_model("out")


if __name__ == "__main__":
    main()
