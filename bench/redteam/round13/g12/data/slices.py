import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class SliceDataset(Dataset):
    def __init__(self, images: np.ndarray, masks: np.ndarray, augment: bool):
        self.images, self.masks, self.augment = images, masks, augment

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = torch.from_numpy(self.images[i]).float().unsqueeze(0)
        mask = torch.from_numpy(self.masks[i]).long()
        if self.augment and torch.rand(()) < 0.5:
            image, mask = image.flip(-1), mask.flip(-1)
        return image, mask


class SliceDataModule(L.LightningDataModule):
    """Loads the whole archive in the parent process; forked workers share the pages."""

    def __init__(self, path: str, batch_size: int, val_fraction: float = 0.1):
        super().__init__()
        archive = np.load(path)
        images, masks = archive["images"], archive["masks"]
        n_val = int(len(images) * val_fraction)
        self.train_set = SliceDataset(images[n_val:], masks[n_val:], augment=True)
        self.val_set = SliceDataset(images[:n_val], masks[:n_val], augment=False)
        self.batch_size = batch_size

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=4, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size, num_workers=2)
