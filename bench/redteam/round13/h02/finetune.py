"""Instruction finetune with DeepSpeed ZeRO-2 offload; launched by scripts/finetune.sh."""
import argparse
import json

import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer


class InstructionData(Dataset):
    def __init__(self, path, tokenizer, max_len=1024):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        text = row["prompt"] + row["response"] + self.tokenizer.eos_token
        enc = self.tokenizer(text, max_length=self.max_len, truncation=True, padding="max_length",
                             return_tensors="pt")
        ids = enc.input_ids[0]
        return {"input_ids": ids, "attention_mask": enc.attention_mask[0], "labels": ids.clone()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--out", default="outputs/finetune")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = InstructionData(args.data, tokenizer)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=2, pin_memory=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            if dist.get_rank() == 0 and step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        engine.save_checkpoint(args.out, tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
