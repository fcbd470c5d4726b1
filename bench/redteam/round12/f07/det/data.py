import torch
from torchvision import datasets, transforms


def coco_detection(root, split):
    tfm = transforms.Compose([transforms.ToTensor()])
    return datasets.CocoDetection(f"{root}/{split}2017", f"{root}/annotations/instances_{split}2017.json",
                                  transform=tfm)


def collate(batch):
    images, targets = zip(*batch)
    return list(images), list(targets)


def to_targets(raw, device):
    out = []
    for anns in raw:
        boxes = torch.tensor([a["bbox"] for a in anns], dtype=torch.float32).reshape(-1, 4)
        boxes[:, 2:] += boxes[:, :2]
        labels = torch.tensor([a["category_id"] for a in anns], dtype=torch.int64)
        out.append({"boxes": boxes.to(device), "labels": labels.to(device)})
    return out
