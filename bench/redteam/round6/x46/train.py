import argparse
import os

import deepspeed
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser.add_argument("--out", default="ckpt")
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

tok = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")
engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for step in range(1, 2001):
    ids = torch.randint(0, 50257, (2, 256), device=engine.device)
    engine.backward(engine(input_ids=ids, labels=ids).loss)
    engine.step()
    if step % 500 == 0:
        engine.save_checkpoint(args.out, tag=f"step{step}")
        if engine.global_rank == 0:
            tok.save_pretrained(os.path.join(args.out, f"step{step}"))
            engine.module.config.save_pretrained(os.path.join(args.out, f"step{step}"))
