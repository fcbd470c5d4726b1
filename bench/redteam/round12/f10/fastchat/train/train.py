import json
from dataclasses import dataclass, field
from typing import Optional

import torch
import transformers
from torch.utils.data import Dataset
from transformers import Trainer

from fastchat.train.conversation import render

IGNORE_TOKEN_ID = -100


@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default="lmsys/vicuna-13b-v1.5")


@dataclass
class DataArguments:
    data_path: str = field(default=None)


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    cache_dir: Optional[str] = field(default=None)
    model_max_length: int = field(default=2048)


class SupervisedDataset(Dataset):
    def __init__(self, path, tokenizer):
        with open(path) as f:
            convs = [render(c["conversations"]) for c in json.load(f)]
        enc = tokenizer(convs, return_tensors="pt", padding="max_length", truncation=True,
                        max_length=tokenizer.model_max_length)
        self.input_ids = enc.input_ids
        self.labels = enc.input_ids.clone()
        self.labels[self.labels == tokenizer.pad_token_id] = IGNORE_TOKEN_ID

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, i):
        return {"input_ids": self.input_ids[i], "labels": self.labels[i],
                "attention_mask": self.input_ids[i].ne(0)}


def train():
    parser = transformers.HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path,
                                                              cache_dir=training_args.cache_dir,
                                                              torch_dtype=torch.bfloat16)
    model.config.use_cache = False
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_args.model_name_or_path,
                                                           model_max_length=training_args.model_max_length,
                                                           padding_side="right", use_fast=False)
    tokenizer.pad_token = tokenizer.unk_token
    trainer = Trainer(model=model, tokenizer=tokenizer, args=training_args,
                      train_dataset=SupervisedDataset(data_args.data_path, tokenizer))
    trainer.train()
    trainer.save_state()
    trainer.save_model(output_dir=training_args.output_dir)


if __name__ == "__main__":
    train()
