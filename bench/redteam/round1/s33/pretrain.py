import argparse

import deepspeed
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from lm.opt import make_cpu_adam


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ds_offload.json")
    args = ap.parse_args()
    deepspeed.init_distributed()
    model = GPT2LMHeadModel(GPT2Config(n_embd=2560, n_layer=32, n_head=32))
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=make_cpu_adam(model.parameters()), config=args.config)
    for step in range(100000):
        batch = torch.randint(0, 50257, (4, 1024), device=engine.device)
        engine.backward(engine(input_ids=batch, labels=batch).loss)
        engine.step()


if __name__ == "__main__":
    main()
