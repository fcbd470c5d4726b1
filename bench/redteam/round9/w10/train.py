import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import transforms

from det.hooks import EvalHook
from det.runner import Runner


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    norm = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    train_set = torchvision.datasets.ImageFolder(
        "/data/inat/train", transforms.Compose([transforms.RandomResizedCrop(384), transforms.ToTensor(), norm]))
    val_set = torchvision.datasets.ImageFolder(
        "/data/inat/val", transforms.Compose([transforms.Resize(416), transforms.CenterCrop(384),
                                              transforms.ToTensor(), norm]))
    train_loader = DataLoader(train_set, batch_size=48, sampler=DistributedSampler(train_set),
                              num_workers=8, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=128, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=8, pin_memory=True)

    model = torchvision.models.convnext_small(num_classes=1010).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.05)
    Runner(model, optimizer, train_loader, device, max_epochs=100, hooks=[EvalHook(val_loader)]).run()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
