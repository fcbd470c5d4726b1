import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import TensorDataset

from data import make_loader

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
ds = TensorDataset(torch.randn(10000, 32), torch.randn(10000, 1))
loader = make_loader(ds, batch_size=64)
model = DDP(torch.nn.Linear(32, 1).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
