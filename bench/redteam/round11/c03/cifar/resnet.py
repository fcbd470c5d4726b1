import torch.nn as nn
import torchvision


def resnet18(num_classes=100):
    """torchvision ResNet-18 with the CIFAR stem (3x3 conv, no max-pool)."""
    model = torchvision.models.resnet18(num_classes=num_classes)
    model.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model
