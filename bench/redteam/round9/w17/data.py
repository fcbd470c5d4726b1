import torch
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset

VOCAB = "_ abcdefghijklmnopqrstuvwxyz'"


class SpeechDataset(Dataset):
    def __init__(self, manifest):
        with open(manifest) as f:
            self.rows = [line.rstrip("\n").split("\t") for line in f]
        self.fbank = torchaudio.transforms.MelSpectrogram(16000, n_mels=80)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        path, text = self.rows[i]
        wav, _ = torchaudio.load(path)
        feats = self.fbank(wav)[0].T.log1p()
        return feats, torch.tensor([VOCAB.index(c) for c in text.lower() if c in VOCAB])


def collate(batch):
    feats, targets = zip(*batch)
    return (pad_sequence(feats, batch_first=True), torch.tensor([len(f) for f in feats]),
            pad_sequence(targets, batch_first=True), torch.tensor([len(t) for t in targets]))
