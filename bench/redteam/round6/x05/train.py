import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from slurm_utils import init_from_slurm

rank, world = init_from_slurm()
model = DDP(torch.nn.Linear(128, 10).cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(50):
    loss = model(torch.randn(64, 128, device="cuda")).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
