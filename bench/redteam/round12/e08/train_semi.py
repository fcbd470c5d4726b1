import argparse
import os

import torch
import torch.distributed as dist
import torchvision
import torchvision.transforms as T
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, Subset

from semi.mean_teacher import MeanTeacherTrainer

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


class TwoViews:
    def __init__(self, weak, strong):
        self.weak, self.strong = weak, strong

    def __call__(self, img):
        return self.weak(img), self.strong(img)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/cifar10")
    parser.add_argument("--num-labeled", type=int, default=4000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--mu", type=int, default=7, help="unlabeled/labeled batch ratio")
    parser.add_argument("--max-iters", type=int, default=2 ** 20)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    norm = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    weak = T.Compose([T.RandomHorizontalFlip(), T.RandomCrop(32, padding=4, padding_mode="reflect"), norm])
    strong = T.Compose([T.RandomHorizontalFlip(), T.RandomCrop(32, padding=4, padding_mode="reflect"),
                        T.RandAugment(num_ops=2, magnitude=10), norm])
    labeled = torchvision.datasets.CIFAR10(args.data, train=True, transform=weak)
    unlabeled = torchvision.datasets.CIFAR10(args.data, train=True, transform=TwoViews(weak, strong))
    g = torch.Generator().manual_seed(0)
    labeled = Subset(labeled, torch.randperm(len(labeled), generator=g)[:args.num_labeled].tolist())
    labeled_loader = DataLoader(labeled, batch_size=args.batch_size, sampler=DistributedSampler(labeled),
                                num_workers=4, drop_last=True)
    unlabeled_loader = DataLoader(unlabeled, batch_size=args.batch_size * args.mu,
                                  sampler=DistributedSampler(unlabeled), num_workers=8, drop_last=True)

    raw_model = torchvision.models.resnet18(num_classes=10).to(device)
    model = DDP(raw_model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=5e-4, nesterov=True)
    trainer = MeanTeacherTrainer(model, raw_model, optimizer, labeled_loader, unlabeled_loader, device,
                                 args.max_iters)
    trainer.fit()
    if dist.get_rank() == 0:
        torch.save({"student": raw_model.state_dict(), "teacher": trainer.ema.module.state_dict()}, "mean_teacher.pt")


if __name__ == "__main__":
    main()
