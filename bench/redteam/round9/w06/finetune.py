import argparse

import deepspeed
import torch
import torch.distributed as dist
from transformers import AutoModelForCausalLM, AutoTokenizer


def batches(tokenizer, path, micro_batch):
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    lines = lines[dist.get_rank()::dist.get_world_size()]
    for start in range(0, len(lines), micro_batch):
        enc = tokenizer(lines[start:start + micro_batch], return_tensors="pt", padding=True,
                        truncation=True, max_length=1024)
        yield enc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="Qwen/Qwen2.5-1.5B")
    parser.add_argument("--data", default="data/train.txt")
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    for enc in batches(tokenizer, args.data, engine.train_micro_batch_size_per_gpu()):
        enc = {k: v.to(engine.device) for k, v in enc.items()}
        out = engine(**enc, labels=enc["input_ids"])
        engine.backward(out.loss)
        engine.step()
    engine.save_checkpoint("checkpoints/final")


if __name__ == "__main__":
    main()
