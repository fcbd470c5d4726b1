import json

import torch
import torchaudio
from torch.utils.data import Dataset


class ManifestASR(Dataset):
    """NeMo-style JSON-lines manifest: {"audio_filepath": ..., "text": ...} per line."""

    def __init__(self, manifest, processor, sample_rate=16000):
        with open(manifest) as f:
            self.items = [json.loads(line) for line in f]
        self.processor = processor
        self.sample_rate = sample_rate

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        wav, sr = torchaudio.load(item["audio_filepath"])
        wav = torchaudio.functional.resample(wav.mean(0), sr, self.sample_rate)
        feats = self.processor.feature_extractor(wav.numpy(), sampling_rate=self.sample_rate,
                                                 return_tensors="pt").input_features[0]
        labels = self.processor.tokenizer(item["text"], return_tensors="pt").input_ids[0]
        return feats, labels


def collate(batch, pad_id=-100):
    feats = torch.stack([f for f, _ in batch])
    width = max(len(lab) for _, lab in batch)
    labels = torch.full((len(batch), width), pad_id)
    for i, (_, lab) in enumerate(batch):
        labels[i, : len(lab)] = lab
    return feats, labels
