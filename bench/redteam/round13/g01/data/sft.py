import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TokenizedSFT(Dataset):
    """Pre-tokenized (input_ids, labels) pairs, padded to a fixed length."""

    def __init__(self, path: str):
        blob = torch.load(path, map_location="cpu")
        self.input_ids = blob["input_ids"]
        self.labels = blob["labels"]

    def __len__(self):
        return self.input_ids.size(0)

    def __getitem__(self, i):
        return {"input_ids": self.input_ids[i], "labels": self.labels[i]}


def build_train_loader(path: str, batch_size: int):
    dataset = TokenizedSFT(path)
    sampler = DistributedSampler(dataset, shuffle=True, drop_last=True)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=2, pin_memory=True)
    return loader, sampler
