import os
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def build_model():
    local_rank = int(os.environ["LOCAL_RANK"])
    net = torch.nn.Linear(32, 32).cuda()
    return DDP(net, device_ids=[local_rank])
