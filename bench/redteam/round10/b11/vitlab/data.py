"""ImageNet LightningDataModule."""
import lightning as L
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class ImageNetData(L.LightningDataModule):
    def __init__(self, root: str = "/datasets/imagenet", batch_size: int = 128, num_workers: int = 6):
        super().__init__()
        self.save_hyperparameters()

    def setup(self, stage=None):
        norm = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
        self.train_set = datasets.ImageFolder(f"{self.hparams.root}/train", transforms.Compose(
            [transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
        self.val_set = datasets.ImageFolder(f"{self.hparams.root}/val", transforms.Compose(
            [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm]))

    def train_dataloader(self):
        return DataLoader(self.train_set, self.hparams.batch_size, shuffle=True,
                          num_workers=self.hparams.num_workers, pin_memory=True, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, self.hparams.batch_size, num_workers=self.hparams.num_workers)
