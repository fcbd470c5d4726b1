import torch
import torchvision.transforms.v2 as T
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder

NORM = T.Normalize([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])


def build_dataloader(root, is_train, batch_size, workers=8):
    if is_train:
        tf = T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip(), T.TrivialAugmentWide(),
                        T.PILToTensor(), T.ToDtype(torch.float32, scale=True), NORM])
    else:
        tf = T.Compose([T.Resize(256, antialias=True), T.CenterCrop(224), T.PILToTensor(),
                        T.ToDtype(torch.float32, scale=True), NORM])
    dataset = ImageFolder(f"{root}/{'train' if is_train else 'val'}", tf)
    sampler = DistributedSampler(dataset, shuffle=is_train, drop_last=is_train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers, pin_memory=True,
                      drop_last=is_train)
