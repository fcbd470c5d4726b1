"""Pascal VOC 2012 (+SBD) segmentation with joint image/mask transforms."""
import random

import torch
import torchvision.transforms.functional as TF
from torchvision.datasets import VOCSegmentation


class JointTransform:
    def __init__(self, crop_size, train):
        self.crop_size, self.train = crop_size, train

    def __call__(self, image, mask):
        if self.train:
            scale = random.uniform(0.5, 2.0)
            size = [int(image.height * scale), int(image.width * scale)]
            image, mask = TF.resize(image, size), TF.resize(mask, size, interpolation=TF.InterpolationMode.NEAREST)
            pad_h, pad_w = max(self.crop_size - size[0], 0), max(self.crop_size - size[1], 0)
            image, mask = TF.pad(image, [0, 0, pad_w, pad_h]), TF.pad(mask, [0, 0, pad_w, pad_h], fill=255)
            top = random.randint(0, image.height - self.crop_size)
            left = random.randint(0, image.width - self.crop_size)
            image = TF.crop(image, top, left, self.crop_size, self.crop_size)
            mask = TF.crop(mask, top, left, self.crop_size, self.crop_size)
            if random.random() < 0.5:
                image, mask = TF.hflip(image), TF.hflip(mask)
        image = TF.normalize(TF.to_tensor(image), (0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
        return image, torch.as_tensor(TF.pil_to_tensor(mask)[0], dtype=torch.int64)


def build_voc(root, image_set, crop_size):
    return VOCSegmentation(root, year="2012", image_set=image_set,
                           transforms=JointTransform(crop_size, train=image_set == "train"))
