"""Tokenised chat samples for the transformers Trainer."""
import json

import torch
from torch.utils.data import Dataset


class ChatSFT(Dataset):
    def __init__(self, path: str, tokenizer, max_len: int):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        text = self.tok.apply_chat_template(self.rows[i]["messages"], tokenize=False)
        enc = self.tok(text, max_length=self.max_len, truncation=True, padding="max_length")
        ids = torch.tensor(enc["input_ids"])
        labels = ids.clone()
        labels[torch.tensor(enc["attention_mask"]) == 0] = -100
        return {"input_ids": ids, "attention_mask": torch.tensor(enc["attention_mask"]), "labels": labels}
