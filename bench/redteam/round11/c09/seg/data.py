import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class Cityscapes(Dataset):
    def __init__(self, root, split, crop=None):
        self.crop = crop
        img_dir = os.path.join(root, "leftImg8bit", split)
        self.items = []
        for city in sorted(os.listdir(img_dir)):
            for name in sorted(os.listdir(os.path.join(img_dir, city))):
                label = name.replace("leftImg8bit.png", "gtFine_labelTrainIds.png")
                self.items.append((os.path.join(img_dir, city, name), os.path.join(root, "gtFine", split, city, label)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        img_path, label_path = self.items[i]
        img = (np.asarray(Image.open(img_path).convert("RGB"), dtype=np.float32) / 255.0 - MEAN) / STD
        label = np.asarray(Image.open(label_path), dtype=np.int64)
        if self.crop:
            h, w = self.crop
            y = np.random.randint(0, img.shape[0] - h + 1)
            x = np.random.randint(0, img.shape[1] - w + 1)
            img, label = img[y : y + h, x : x + w], label[y : y + h, x : x + w]
        return torch.from_numpy(img.transpose(2, 0, 1).copy()), torch.from_numpy(label.copy())
