import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, DistributedSampler

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def cifar_loaders(root, batch_size, workers=4):
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train_set = torchvision.datasets.CIFAR10(root, train=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(root, train=False, transform=test_tf)
    train_sampler = DistributedSampler(train_set, shuffle=True, drop_last=True)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, num_workers=workers,
                              pin_memory=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=500, num_workers=workers)
    return train_loader, test_loader
