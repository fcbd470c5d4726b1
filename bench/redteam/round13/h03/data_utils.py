"""JSONL chat data for SFT."""
import json

import torch
from torch.utils.data import Dataset


class ChatJsonl(Dataset):
    def __init__(self, path, tokenizer, max_len=2048):
        with open(path) as f:
            self.samples = [json.loads(line) for line in f if line.strip()]
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        messages = self.samples[idx]["messages"]
        ids = self.tokenizer.apply_chat_template(messages, tokenize=True, truncation=True,
                                                 max_length=self.max_len)
        return torch.tensor(ids, dtype=torch.long)


def pad_collate(batch, pad_id):
    longest = max(len(x) for x in batch)
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), longest), -100, dtype=torch.long)
    for i, seq in enumerate(batch):
        input_ids[i, :len(seq)] = seq
        labels[i, :len(seq)] = seq
    return {"input_ids": input_ids, "attention_mask": (input_ids != pad_id).long(), "labels": labels}
