"""Exact-match accuracy on GSM8K with DeepSpeed-Inference tensor parallelism.

Every rank decodes the same prompts (the ranks of a tensor-parallel group must see the same batch).
"""
import argparse
import json
import os

import deepspeed
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer

from evalkit.engine import build_engine
from evalkit.gsm8k import GSM8K, extract


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--model", required=True)
    parser.add_argument("--test-file", default="data/gsm8k_test.jsonl")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--max_new_tokens", type=int, default=384)
    args = parser.parse_args()

    torch.cuda.set_device(args.local_rank)
    deepspeed.init_distributed()
    world_size = int(os.environ.get("WORLD_SIZE", "1"))

    tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side="left")
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.float16)
    model = build_engine(model, tp_size=world_size)

    test_loader = DataLoader(GSM8K(args.test_file), batch_size=args.batch_size, shuffle=False,
                             collate_fn=lambda rows: tuple(zip(*rows)))
    correct, total, records = 0, 0, []
    with torch.inference_mode():
        for prompts, answers in test_loader:
            enc = tokenizer(list(prompts), return_tensors="pt", padding=True).to(torch.cuda.current_device())
            out = model.generate(**enc, max_new_tokens=args.max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.eos_token_id)
            texts = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
            for prompt, gold, text in zip(prompts, answers, texts):
                pred = extract(text)
                correct += int(pred is not None and pred == gold)
                total += 1
                records.append({"prompt": prompt, "gold": gold, "completion": text, "pred": pred})

    if args.local_rank == 0:
        os.makedirs("results", exist_ok=True)
        with open(os.path.join("results", os.path.basename(args.model.rstrip("/")) + ".jsonl"), "w") as f:
            for rec in records:
                f.write(json.dumps(rec) + "\n")
        print(f"GSM8K exact match: {correct / total:.4f} ({correct}/{total})")


if __name__ == "__main__":
    main()
