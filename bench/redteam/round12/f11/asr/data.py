import json

import torch
import torchaudio
from torch.utils.data import Dataset


class LibriManifest(Dataset):
    def __init__(self, manifest, processor, max_seconds=20.0):
        with open(manifest) as f:
            self.items = [json.loads(line) for line in f]
        self.items = [it for it in self.items if it["duration"] <= max_seconds]
        self.processor = processor

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        it = self.items[i]
        wav, sr = torchaudio.load(it["audio_filepath"])
        wav = torchaudio.functional.resample(wav, sr, 16000).mean(0)
        feats = self.processor(wav.numpy(), sampling_rate=16000, return_tensors="pt").input_values[0]
        labels = torch.tensor(self.processor.tokenizer(it["text"]).input_ids)
        return feats, labels


def pad_collate(batch):
    feats, labels = zip(*batch)
    feats = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    labels = torch.nn.utils.rnn.pad_sequence(labels, batch_first=True, padding_value=-100)
    return feats, labels
