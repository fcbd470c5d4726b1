import os

import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder

IMAGENET_MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
IMAGENET_STD = (0.229 * 255, 0.224 * 255, 0.225 * 255)


class PrefetchLoader:
    """Copy the next batch to the GPU on a side stream and normalise it there (timm's PrefetchLoader)."""

    def __init__(self, loader, device):
        self.loader = loader
        self.device = device
        self.mean = torch.tensor(IMAGENET_MEAN, device=device).view(1, 3, 1, 1)
        self.std = torch.tensor(IMAGENET_STD, device=device).view(1, 3, 1, 1)

    def __iter__(self):
        stream = torch.cuda.Stream()
        first = True
        for next_input, next_target in self.loader:
            with torch.cuda.stream(stream):
                next_input = next_input.to(self.device, non_blocking=True).float().sub_(self.mean).div_(self.std)
                next_target = next_target.to(self.device, non_blocking=True)
            if not first:
                yield inputs, target
            else:
                first = False
            torch.cuda.current_stream().wait_stream(stream)
            inputs, target = next_input, next_target
        yield inputs, target

    def __len__(self):
        return len(self.loader)

    @property
    def sampler(self):
        return self.loader.sampler

    @property
    def dataset(self):
        return self.loader.dataset


def _to_uint8_tensor(img):
    return torch.as_tensor(T.functional.pil_to_tensor(img), dtype=torch.uint8)


def build_dataloader(cfg, is_train, device, distributed=True):
    if is_train:
        tf = T.Compose([T.RandomResizedCrop(cfg.img_size), T.RandomHorizontalFlip(), _to_uint8_tensor])
        dataset = ImageFolder(os.path.join(cfg.data, "train"), tf)
    else:
        tf = T.Compose([T.Resize(int(cfg.img_size / 0.875)), T.CenterCrop(cfg.img_size), _to_uint8_tensor])
        dataset = ImageFolder(os.path.join(cfg.data, "val"), tf)
    if distributed:
        sampler = DistributedSampler(dataset) if is_train else DistributedSampler(dataset, shuffle=False)
    else:
        sampler = None
    loader = DataLoader(dataset, batch_size=cfg.batch_size, sampler=sampler,
                        shuffle=(sampler is None and is_train), num_workers=cfg.workers,
                        pin_memory=True, drop_last=is_train, persistent_workers=True)
    return PrefetchLoader(loader, device)
