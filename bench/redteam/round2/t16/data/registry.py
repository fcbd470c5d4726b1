from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def build_imagenet(batch_size):
    ds = datasets.ImageFolder("/data/imagenet/train", transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    return DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=8, pin_memory=True)


def build_places(batch_size):
    ds = datasets.Places365("/data/places", split="train-standard", transform=transforms.ToTensor())
    return DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=8, pin_memory=True)


LOADERS = {"imagenet": build_imagenet, "places": build_places}
