import os

import timm
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from distill.step import DistillStep


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    teacher = timm.create_model("vit_large_patch16_224", pretrained=True).to(device)
    student = DDP(timm.create_model("resnet50", num_classes=1000).to(device), device_ids=[local_rank])
    optimizer = torch.optim.SGD(student.parameters(), lr=0.4, momentum=0.9, weight_decay=5e-5)
    step = DistillStep(student, teacher, optimizer)

    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                             transforms.ToTensor()])
    train_set = datasets.ImageFolder("/data/imagenet/train", tf)
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=128, sampler=sampler, num_workers=10, pin_memory=True,
                        drop_last=True)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            loss = step(images.to(device, non_blocking=True), labels.to(device, non_blocking=True))
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
