"""Cityscapes fine annotations as (image, mask) pairs."""
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class Cityscapes(Dataset):
    def __init__(self, root, split="train", crop=768):
        img_dir = os.path.join(root, "leftImg8bit", split)
        self.items = []
        for city in sorted(os.listdir(img_dir)):
            for name in sorted(os.listdir(os.path.join(img_dir, city))):
                mask = name.replace("leftImg8bit", "gtFine_labelTrainIds")
                self.items.append((os.path.join(img_dir, city, name),
                                   os.path.join(root, "gtFine", split, city, mask)))
        self.crop = crop if split == "train" else None

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        img_path, mask_path = self.items[idx]
        img = np.asarray(Image.open(img_path).convert("RGB"), dtype=np.float32) / 255.0
        mask = np.asarray(Image.open(mask_path), dtype=np.int64)
        if self.crop:
            y = np.random.randint(0, img.shape[0] - self.crop + 1)
            x = np.random.randint(0, img.shape[1] - self.crop + 1)
            img, mask = img[y:y + self.crop, x:x + self.crop], mask[y:y + self.crop, x:x + self.crop]
        return torch.from_numpy(img.copy()).permute(2, 0, 1), torch.from_numpy(mask.copy())
