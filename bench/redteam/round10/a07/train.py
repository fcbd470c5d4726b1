import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from engine import evaluate, train_one_epoch
from imagenet_data import build_dataset
from models import build_student, build_teacher
from utils.torch_utils import freeze


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--teacher", required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.2)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    train_set, val_set = build_dataset(args.data, train=True), build_dataset(args.data, train=False)
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=8, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=8, pin_memory=True)

    teacher = freeze(build_teacher(args.teacher)).to(device)
    student = DDP(build_student().to(device), device_ids=[local_rank])
    optimizer = torch.optim.SGD(student.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-5)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        loss = train_one_epoch(student, teacher, train_loader, optimizer, device)
        top1 = evaluate(student.module, val_loader, device)
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {loss:.4f} top1 {top1:.4f}")
            torch.save(student.module.state_dict(), f"student_{epoch:03d}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
