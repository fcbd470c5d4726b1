import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from seg.config import DataConfig
from seg.data import get_dataloaders


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/cityscapes")
    parser.add_argument("--epochs", type=int, default=80)
    args = parser.parse_args()

    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    cfg = DataConfig(root=args.data)
    train_loader, val_loader = get_dataloaders(cfg)
    net = torchvision.models.segmentation.deeplabv3_resnet50(num_classes=19).cuda()
    net = DDP(net, device_ids=[local_rank])
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(args.epochs):
        net.train()
        for img, mask in train_loader:
            out = net(img.cuda(non_blocking=True))["out"]
            loss = F.cross_entropy(out, mask.cuda(non_blocking=True), ignore_index=255)
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
