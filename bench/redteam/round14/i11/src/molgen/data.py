import json

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class SmilesDataset(Dataset):
    def __init__(self, corpus: str, vocab: str, max_len: int):
        with open(vocab) as f:
            self.stoi = json.load(f)
        with open(corpus) as f:
            self.lines = [line.strip() for line in f if line.strip()]
        self.max_len = max_len
        self.bos, self.eos, self.pad = self.stoi["<bos>"], self.stoi["<eos>"], self.stoi["<pad>"]

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        ids = [self.bos] + [self.stoi.get(ch, self.pad) for ch in self.lines[i]][: self.max_len - 2] + [self.eos]
        ids += [self.pad] * (self.max_len - len(ids))
        ids = torch.tensor(ids)
        return ids, ids.masked_fill(ids == self.pad, -100)


def build_loader(cfg: dict, micro_batch: int) -> DataLoader:
    dataset = SmilesDataset(cfg["corpus"], cfg["vocab"], cfg["max_len"])
    return DataLoader(dataset, batch_size=micro_batch, sampler=DistributedSampler(dataset, shuffle=True),
                      num_workers=2, pin_memory=True, drop_last=True)
