import numpy as np
import torch
from torch.utils.data import Dataset


class TileDataset(Dataset):
    def __init__(self, index_file, augment=True):
        self.items = np.load(index_file, allow_pickle=True)
        self.augment = augment

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        image = torch.from_numpy(np.load(self.items[i]["image"])).float() / 255.0
        mask = torch.from_numpy(np.load(self.items[i]["mask"])).long()
        if self.augment and torch.rand(()) < 0.5:
            image, mask = image.flip(-1), mask.flip(-1)
        return image, mask
