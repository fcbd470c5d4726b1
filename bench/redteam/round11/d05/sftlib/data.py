import json

import torch
from torch.utils.data import Dataset


class ChatSFT(Dataset):
    def __init__(self, path, tokenizer, max_len=2048):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        text = self.tok.apply_chat_template(self.rows[i]["messages"], tokenize=False)
        enc = self.tok(text, truncation=True, max_length=self.max_len, padding="max_length", return_tensors="pt")
        ids = enc["input_ids"][0]
        labels = ids.masked_fill(enc["attention_mask"][0] == 0, -100)
        return {"input_ids": ids, "attention_mask": enc["attention_mask"][0], "labels": labels}
