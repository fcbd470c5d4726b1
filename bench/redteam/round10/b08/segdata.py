"""Cityscapes-style segmentation pairs (torch Dataset over preprocessed .pt files)."""
import glob

import torch
from torch.utils.data import Dataset


class SegPairs(Dataset):
    def __init__(self, root: str):
        self.files = sorted(glob.glob(f"{root}/*.pt"))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        sample = torch.load(self.files[i], map_location="cpu")
        return sample["image"], sample["mask"]
