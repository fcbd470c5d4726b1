import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


def get_parser():
    p = argparse.ArgumentParser("DETR training")
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--num-workers", type=int, default=12)
    p.add_argument("--epochs", type=int, default=150)
    return p


def collate(batch):
    return tuple(zip(*batch))


def main(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torchvision.models.detection.fasterrcnn_resnet50_fpn(num_classes=91).cuda()
    model = DDP(model, device_ids=[local_rank])
    ds = torchvision.datasets.CocoDetection("/data/coco/train2017", "/data/coco/annotations/instances_train2017.json",
                                            transform=torchvision.transforms.ToTensor())
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=args.num_workers, collate_fn=collate)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, targets in loader:
            losses = model([i.cuda() for i in images], [{k: v.cuda() for k, v in t.items()} for t in targets])
            loss = sum(losses.values())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main(get_parser().parse_args())
