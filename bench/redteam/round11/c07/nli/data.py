import json

import torch
from torch.utils.data import Dataset

LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}


class PairDataset(Dataset):
    def __init__(self, path, tokenizer, max_len=256):
        self.rows = []
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                if row["gold_label"] not in LABELS:
                    continue
                enc = tokenizer(row["sentence1"], row["sentence2"], truncation=True, max_length=max_len)
                self.rows.append((enc["input_ids"], LABELS[row["gold_label"]]))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids, label = self.rows[i]
        return {"input_ids": ids, "labels": label}


class DynamicPad:
    """Pad each batch to its own longest pair instead of max_len."""

    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, batch):
        width = max(len(b["input_ids"]) for b in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, b in enumerate(batch):
            ids[i, : len(b["input_ids"])] = torch.tensor(b["input_ids"])
            mask[i, : len(b["input_ids"])] = 1
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor([b["labels"] for b in batch])}
