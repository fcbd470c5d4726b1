"""ImageNet folders with the standard torchvision transforms."""
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_dataset(root: str, train: bool):
    if train:
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    else:
        tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                                 transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    return datasets.ImageFolder(f"{root}/{'train' if train else 'val'}", tf)
