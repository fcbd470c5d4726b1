"""LoRA fine-tune of a causal LM with DeepSpeed ZeRO-2."""
import argparse
import os

import deepspeed
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator

from lora import add_lora

parser = argparse.ArgumentParser(description="LoRA fine-tune")
parser.add_argument("--local-rank", type=int, default=-1, help="set by the launcher")
parser.add_argument("--model", default="mistralai/Mistral-7B-v0.1")
parser.add_argument("--data", default="data/train.jsonl")
parser.add_argument("--epochs", type=int, default=1)
parser.add_argument("--lora-r", type=int, default=16)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()


def main():
    local_rank = int(os.environ.get("LOCAL_RANK", args.local_rank))
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed()

    tok = AutoTokenizer.from_pretrained(args.model)
    tok.pad_token = tok.eos_token
    model = add_lora(AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16), r=args.lora_r)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model,
                                           model_parameters=[p for p in model.parameters() if p.requires_grad])

    raw = load_dataset("json", data_files=args.data, split="train")
    ds = raw.map(lambda r: {**tok(r["text"], truncation=True, max_length=1024, padding="max_length"),
                            "labels": tok(r["text"], truncation=True, max_length=1024, padding="max_length")["input_ids"]},
                 remove_columns=raw.column_names).with_format("torch")
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=default_data_collator)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
    engine.save_checkpoint("checkpoints/lora")


if __name__ == "__main__":
    main()
