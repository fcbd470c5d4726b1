"""ImageNet-21k loaders for the DDP run."""
import os

from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from config import TrainConfig

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_train_loader(root: str, cfg: TrainConfig) -> DataLoader:
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224, scale=(0.08, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.TrivialAugmentWide(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    dataset = datasets.ImageFolder(os.path.join(root, "train"), tf)
    sampler = DistributedSampler(dataset, shuffle=True)
    return DataLoader(dataset, batch_size=cfg.batch_size, sampler=sampler, num_workers=cfg.num_workers,
                      pin_memory=True, drop_last=True, persistent_workers=True, prefetch_factor=4)
