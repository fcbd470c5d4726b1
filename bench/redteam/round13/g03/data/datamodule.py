import json

import torch
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class ManifestDataset(Dataset):
    def __init__(self, manifest, vocab):
        with open(manifest) as f:
            self.items = [json.loads(line) for line in f]
        self.vocab = vocab
        self.features = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_mels=80)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        wav, _ = torchaudio.load(item["audio"])
        feats = self.features(wav).squeeze(0).transpose(0, 1).clamp_min(1e-10).log()
        tokens = torch.tensor([self.vocab[c] for c in item["text"].lower() if c in self.vocab])
        return feats, tokens


def collate(batch):
    feats, tokens = zip(*batch)
    return (pad_sequence(feats, batch_first=True), torch.tensor([f.size(0) for f in feats]),
            pad_sequence(tokens, batch_first=True), torch.tensor([t.size(0) for t in tokens]))


class SpeechDataModule:
    """Builds the loaders of a run; each rank reads its own share through DistributedSampler."""

    def __init__(self, train_manifest, val_manifest, vocab, batch_size, num_workers=6):
        self.train_set = ManifestDataset(train_manifest, vocab)
        self.val_set = ManifestDataset(val_manifest, vocab)
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        sampler = DistributedSampler(self.train_set, shuffle=True, drop_last=True)
        return DataLoader(self.train_set, batch_size=self.batch_size, sampler=sampler, collate_fn=collate,
                          num_workers=self.num_workers, pin_memory=True, persistent_workers=True)

    def val_dataloader(self):
        sampler = DistributedSampler(self.val_set, shuffle=False)
        return DataLoader(self.val_set, batch_size=self.batch_size, sampler=sampler, collate_fn=collate,
                          num_workers=2, pin_memory=True)
