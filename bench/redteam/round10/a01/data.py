import os

import numpy as np
import torch
from torch.utils.data import Dataset


class KeywordSpottingDataset(Dataset):
    """Log-mel features (n_mels x 101 frames) precomputed as .npy files, listed in <split>.tsv."""

    def __init__(self, root, split):
        with open(os.path.join(root, f"{split}.tsv")) as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        self.root = root
        self.items = [(path, int(label)) for path, label in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        features = np.load(os.path.join(self.root, path))
        return torch.from_numpy(features).float(), label
