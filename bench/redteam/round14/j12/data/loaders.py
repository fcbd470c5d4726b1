"""Food-101 style folders -> DataLoaders. Sharding across processes is left to accelerator.prepare()."""
import os

from torch.utils.data import DataLoader
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_transforms(size, train):
    if train:
        return transforms.Compose([transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip(),
                                   transforms.TrivialAugmentWide(), transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    return transforms.Compose([transforms.Resize(int(size * 1.14)), transforms.CenterCrop(size),
                               transforms.ToTensor(), transforms.Normalize(MEAN, STD)])


def build_dataloaders(args):
    train_set = datasets.ImageFolder(os.path.join(args.data_dir, "train"), build_transforms(args.image_size, True))
    eval_set = datasets.ImageFolder(os.path.join(args.data_dir, "test"), build_transforms(args.image_size, False))
    train_dl = DataLoader(train_set, batch_size=args.per_device_batch_size, shuffle=True, drop_last=True,
                          num_workers=args.num_workers, pin_memory=True)
    eval_dl = DataLoader(eval_set, batch_size=2 * args.per_device_batch_size, shuffle=False,
                         num_workers=args.num_workers, pin_memory=True)
    return train_dl, eval_dl
