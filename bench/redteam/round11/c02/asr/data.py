import json

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class FeatureManifest(Dataset):
    """JSON-lines manifest: {"feats": path to a .pt fbank tensor, "tokens": [ids]}."""

    def __init__(self, manifest):
        with open(manifest) as f:
            self.entries = [json.loads(line) for line in f]

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, i):
        entry = self.entries[i]
        feats = torch.load(entry["feats"], map_location="cpu")
        return feats, torch.tensor(entry["tokens"], dtype=torch.long)


def pad_collate(batch):
    feats, tokens = zip(*batch)
    feat_lens = torch.tensor([len(f) for f in feats])
    token_lens = torch.tensor([len(t) for t in tokens])
    return pad_sequence(feats, batch_first=True), feat_lens, torch.cat(tokens), token_lens


class DataMixin:
    def build_loaders(self):
        a = self.args
        train_set, dev_set = FeatureManifest(a.train_manifest), FeatureManifest(a.dev_manifest)
        self.train_sampler = DistributedSampler(train_set, shuffle=True, seed=a.seed, drop_last=True)
        self.train_loader = DataLoader(train_set, batch_size=a.batch_size, sampler=self.train_sampler,
                                       collate_fn=pad_collate, num_workers=a.num_workers, pin_memory=True)
        self.dev_loader = DataLoader(dev_set, batch_size=a.batch_size, sampler=DistributedSampler(dev_set, shuffle=False),
                                     collate_fn=pad_collate, num_workers=2)

    def on_epoch_begin(self, epoch):
        self.train_sampler.set_epoch(epoch)
        super().on_epoch_begin(epoch)
