import json

import torch
from torch.utils.data import Dataset


class TokenizedSFT(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        ids = torch.tensor(row["input_ids"])
        labels = ids.clone()
        labels[: row["n_prompt"]] = -100
        return ids, labels


def collate(batch, pad_id=0):
    width = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), width), pad_id)
    labels = torch.full((len(batch), width), -100)
    for i, (ids, lab) in enumerate(batch):
        input_ids[i, : len(ids)] = ids
        labels[i, : len(lab)] = lab
    return {"input_ids": input_ids, "labels": labels, "attention_mask": (labels != -100) | (input_ids != pad_id)}
