import argparse
import functools

import deepspeed
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="ckpt")
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()
    model = torch.nn.Linear(2048, 2048)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    save = functools.partial(engine.save_checkpoint, args.out)
    for step in range(10000):
        x = torch.randn(4, 2048, device=engine.device)
        engine.backward(engine(x).pow(2).mean())
        engine.step()
        if step % 1000 == 0 and engine.global_rank == 0:
            save(tag=f"step{step}")


if __name__ == "__main__":
    main()
