import glob
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class CityscapesCrops(Dataset):
    def __init__(self, root, split, crop=768):
        self.images = sorted(glob.glob(os.path.join(root, "leftImg8bit", split, "*", "*.png")))
        self.crop = crop
        self.train = split == "train"

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = np.asarray(Image.open(self.images[i]).convert("RGB"), dtype=np.float32) / 255.0
        lbl_path = self.images[i].replace("leftImg8bit", "gtFine").replace(".png", "_labelTrainIds.png")
        lbl = np.asarray(Image.open(lbl_path), dtype=np.int64)
        if self.train:
            y0 = np.random.randint(0, img.shape[0] - self.crop + 1)
            x0 = np.random.randint(0, img.shape[1] - self.crop + 1)
            img, lbl = img[y0:y0 + self.crop, x0:x0 + self.crop], lbl[y0:y0 + self.crop, x0:x0 + self.crop]
            if np.random.rand() < 0.5:
                img, lbl = img[:, ::-1], lbl[:, ::-1]
        return torch.from_numpy(img.transpose(2, 0, 1).copy()), torch.from_numpy(lbl.copy())


def build_dataloader(cfg, is_train):
    dataset = CityscapesCrops(cfg["root"], "train" if is_train else "val", cfg["crop"])
    sampler = DistributedSampler(dataset, shuffle=is_train)
    return DataLoader(dataset, batch_size=cfg["batch_size"] if is_train else 1, sampler=sampler,
                      num_workers=cfg["workers"], pin_memory=True, drop_last=is_train), sampler
