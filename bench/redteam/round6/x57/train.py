import os

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from trainer import Trainer

if __name__ == "__main__":
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ds = TensorDataset(torch.randn(20000, 128), torch.randint(0, 10, (20000,)))
    Trainer(torch.nn.Linear(128, 10), ds, local_rank).fit(10)
