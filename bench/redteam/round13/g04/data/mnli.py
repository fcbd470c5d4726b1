import json

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}


class MNLIPairs(Dataset):
    def __init__(self, path, tokenizer, max_len=128):
        with open(path) as f:
            rows = [json.loads(line) for line in f]
        self.enc = tokenizer([r["premise"] for r in rows], [r["hypothesis"] for r in rows],
                             truncation=True, max_length=max_len, padding="max_length", return_tensors="pt")
        self.labels = torch.tensor([LABELS[r["label"]] for r in rows])

    def __len__(self):
        return self.labels.numel()

    def __getitem__(self, i):
        return {"input_ids": self.enc["input_ids"][i], "attention_mask": self.enc["attention_mask"][i],
                "labels": self.labels[i]}


def train_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset, shuffle=True, seed=17)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=4, pin_memory=True), sampler
