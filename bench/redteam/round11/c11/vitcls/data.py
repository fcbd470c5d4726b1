import os

import torchvision.transforms as T
from torchvision.datasets import ImageFolder

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def imagenet(root):
    train_tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.TrivialAugmentWide(), T.ToTensor(), T.Normalize(MEAN, STD)])
    val_tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), T.Normalize(MEAN, STD)])
    return ImageFolder(os.path.join(root, "train"), train_tf), ImageFolder(os.path.join(root, "val"), val_tf)
