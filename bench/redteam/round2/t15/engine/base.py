import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, models, transforms


class BaseTrainer:
    def __init__(self, data_root, epochs):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.epochs = epochs
        self.model = DDP(self.build_model().cuda(), device_ids=[self.local_rank])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)
        train_set = datasets.CIFAR10(data_root, train=True, transform=transforms.ToTensor())
        self.train_sampler = DistributedSampler(train_set, shuffle=True)
        self.train_loader = DataLoader(train_set, batch_size=128, sampler=self.train_sampler, num_workers=4)

    def build_model(self):
        return models.resnet18(num_classes=10)

    def train_step(self, batch):
        raise NotImplementedError
