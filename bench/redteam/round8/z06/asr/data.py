import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Utterances(Dataset):
    def __init__(self, n):
        self.feats = torch.randn(n, 80, 200)
        self.labels = torch.randint(0, 500, (n,))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.feats[i], self.labels[i]


class AudioData:
    def __init__(self, cfg):
        self.dataset = Utterances(20000)
        self.sampler = DistributedSampler(self.dataset, seed=cfg.seed, drop_last=True)
        self.loader = DataLoader(self.dataset, batch_size=cfg.batch_size, sampler=self.sampler,
                                 num_workers=4, pin_memory=True)
