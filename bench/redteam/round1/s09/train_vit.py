import argparse
import os

import timm
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from utils.checkpoint import resume, save_checkpoint


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resume", default="")
    ap.add_argument("--epochs", type=int, default=300)
    args = ap.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(timm.create_model("vit_base_patch16_224").cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    start = resume(args.resume, model.module, opt) if args.resume else 0

    ds = datasets.ImageFolder("/data/imagenet/train", transforms.ToTensor())
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=128, sampler=sampler, num_workers=8)
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            save_checkpoint("checkpoints/last.pt", model.module, opt, epoch)


if __name__ == "__main__":
    main()
