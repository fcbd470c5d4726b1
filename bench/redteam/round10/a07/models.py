import torch
from torchvision.models import resnet18, resnet50


def build_teacher(checkpoint):
    model = resnet50(num_classes=1000)
    model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    return model


def build_student():
    return resnet18(num_classes=1000)
