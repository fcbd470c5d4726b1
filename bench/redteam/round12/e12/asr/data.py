import json

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

from .dist import get_rank, get_world_size


class ShardedManifest(Dataset):
    """Utterances of a JSON-lines manifest, this rank's shard only.

    The manifest is cut to a multiple of the world size and dealt round-robin, so every rank holds the
    same number of utterances (and, with drop_last, takes the same number of steps per epoch).
    """

    def __init__(self, manifest, vocab):
        with open(manifest) as f:
            entries = [json.loads(line) for line in f]
        world, rank = get_world_size(), get_rank()
        entries = entries[: len(entries) // world * world]
        self.entries = entries[rank::world]
        self.vocab = {c: i + 1 for i, c in enumerate(vocab)}  # 0 is the CTC blank

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, i):
        e = self.entries[i]
        feats = torch.load(e["feats"], map_location="cpu")  # (frames, 80) log-mel, written by prep.py
        tokens = torch.tensor([self.vocab[c] for c in e["text"] if c in self.vocab], dtype=torch.long)
        return feats, tokens


def pad_collate(batch):
    feats, tokens = zip(*batch)
    return (pad_sequence(feats, batch_first=True), torch.tensor([len(f) for f in feats]),
            pad_sequence(tokens, batch_first=True), torch.tensor([len(t) for t in tokens]))


def build_dataloader(cfg, is_train):
    dataset = ShardedManifest(cfg["train_manifest"] if is_train else cfg["dev_manifest"], cfg["vocab"])
    return DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=is_train, drop_last=is_train,
                      num_workers=cfg["workers"], collate_fn=pad_collate, pin_memory=True)
