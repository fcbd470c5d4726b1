"""Alpaca-style SFT with the HF Trainer; DeepSpeed config from --deepspeed (see run_sft.sh)."""
import json
from dataclasses import dataclass, field

import torch
import transformers
from torch.utils.data import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, HfArgumentParser, Trainer

PROMPT = "Below is an instruction that describes a task.\n\n### Instruction:\n{instruction}\n\n### Response:\n"


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="meta-llama/Llama-3.1-8B")


@dataclass
class DataArguments:
    data_path: str = field(default="data/alpaca_cleaned.json")


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    model_max_length: int = field(default=2048)


class SupervisedDataset(Dataset):
    def __init__(self, path, tokenizer, max_len):
        with open(path) as f:
            self.examples = json.load(f)
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        ex = self.examples[idx]
        prompt = PROMPT.format(instruction=ex["instruction"])
        full = prompt + ex["output"] + self.tokenizer.eos_token
        ids = self.tokenizer(full, max_length=self.max_len, truncation=True).input_ids
        n_prompt = len(self.tokenizer(prompt).input_ids)
        labels = [-100] * n_prompt + ids[n_prompt:]
        return {"input_ids": torch.tensor(ids), "labels": torch.tensor(labels[:len(ids)])}


def collate(batch, pad_id):
    ids = torch.nn.utils.rnn.pad_sequence([b["input_ids"] for b in batch], batch_first=True, padding_value=pad_id)
    labels = torch.nn.utils.rnn.pad_sequence([b["labels"] for b in batch], batch_first=True, padding_value=-100)
    return {"input_ids": ids, "labels": labels, "attention_mask": ids.ne(pad_id)}


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path, use_fast=True)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, torch_dtype=torch.bfloat16)

    train_set = SupervisedDataset(data_args.data_path, tokenizer, training_args.model_max_length)
    trainer = Trainer(model=model, args=training_args, train_dataset=train_set,
                      data_collator=lambda b: collate(b, tokenizer.pad_token_id))
    trainer.train()
    trainer.save_state()
    trainer.save_model(training_args.output_dir)
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(training_args.output_dir)


if __name__ == "__main__":
    main()
