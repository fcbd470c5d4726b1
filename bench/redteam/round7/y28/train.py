import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.ctx import eval_mode


def evaluate(model, batches):
    total = 0.0
    with eval_mode(model):
        for x in batches:
            total = total + model(x).sum()
    return total


local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    loss = model(torch.randn(4, 8, device="cuda")).sum()
    opt.zero_grad(); loss.backward(); opt.step()
evaluate(model, [torch.randn(4, 8, device="cuda") for _ in range(5)])
