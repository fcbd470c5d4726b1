from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_loaders(data_cfg: dict):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    val_tf = transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    train_set = datasets.ImageFolder(data_cfg["train_dir"], train_tf)
    val_set = datasets.ImageFolder(data_cfg["val_dir"], val_tf)
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=data_cfg["seed"])
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=data_cfg["batch_size"], sampler=train_sampler,
                              num_workers=data_cfg["num_workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=data_cfg["batch_size"], sampler=val_sampler,
                            num_workers=data_cfg["num_workers"], pin_memory=True)
    return train_loader, val_loader
