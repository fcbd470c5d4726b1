import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from metrics import evaluate


class Runner:
    def __init__(self, args):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.is_master = dist.get_rank() == 0
        self.device = torch.device("cuda", self.local_rank)
        self.args = args
        net = torchvision.models.resnet50(num_classes=100).to(self.device)
        self.model = DDP(net, device_ids=[self.local_rank])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)
        tf = torchvision.transforms.ToTensor()
        train = torchvision.datasets.CIFAR100("data", train=True, transform=tf)
        val = torchvision.datasets.CIFAR100("data", train=False, transform=tf)
        self.sampler = DistributedSampler(train)
        self.train_loader = DataLoader(train, batch_size=128, sampler=self.sampler, num_workers=4)
        self.val_loader = DataLoader(val, batch_size=256, sampler=DistributedSampler(val, shuffle=False))

    def train(self):
        for epoch in range(self.args.epochs):
            self.sampler.set_epoch(epoch)
            self.model.train()
            for x, y in self.train_loader:
                loss = torch.nn.functional.cross_entropy(self.model(x.to(self.device)), y.to(self.device))
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            if self.is_master:
                acc = evaluate(self.model, self.val_loader, self.device)
                print(f"epoch {epoch}: top1 {acc:.3f}")
                torch.save(self.model.module.state_dict(), f"ckpt_{epoch}.pt")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    Runner(p.parse_args()).train()
