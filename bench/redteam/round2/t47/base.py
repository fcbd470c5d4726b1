import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class BaseTrainer:
    def __init__(self, net):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        dist.init_process_group("nccl")
        self.model = DDP(net.cuda(), device_ids=[self.local_rank])
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
