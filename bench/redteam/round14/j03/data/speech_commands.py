"""Speech Commands v2 as pre-computed log-mel features (one .npy per clip)."""
import os

import numpy as np
import torch
from torch.utils.data import Dataset

LABELS = ["backward", "bed", "bird", "cat", "dog", "down", "eight", "five", "follow", "forward", "four", "go",
          "happy", "house", "learn", "left", "marvin", "nine", "no", "off", "on", "one", "right", "seven",
          "sheila", "six", "stop", "three", "tree", "two", "up", "visual", "wow", "yes", "zero"]


class LogMelClips(Dataset):
    def __init__(self, root, split, num_frames=98, spec_augment=False):
        with open(os.path.join(root, f"{split}_list.txt")) as f:
            self.items = [line.split() for line in f if line.strip()]
        self.root = root
        self.num_frames = num_frames
        self.spec_augment = spec_augment
        self.label_to_idx = {name: i for i, name in enumerate(LABELS)}

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        rel_path, label = self.items[idx]
        feats = np.load(os.path.join(self.root, rel_path)).astype(np.float32)  # (n_mels, frames)
        feats = feats[:, : self.num_frames]
        if feats.shape[1] < self.num_frames:
            feats = np.pad(feats, ((0, 0), (0, self.num_frames - feats.shape[1])))
        x = torch.from_numpy(feats).unsqueeze(0)
        if self.spec_augment:
            f0 = np.random.randint(0, x.shape[1] - 8)
            t0 = np.random.randint(0, x.shape[2] - 20)
            x[:, f0:f0 + np.random.randint(0, 8)] = 0
            x[:, :, t0:t0 + np.random.randint(0, 20)] = 0
        return x, self.label_to_idx[label]
