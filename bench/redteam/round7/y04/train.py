import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from dist_utils import init_distributed
from models import build

model = build("mlp")
local_rank = init_distributed()
model = DDP(model, device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters())
for _ in range(100):
    loss = model(torch.randn(4, 256, device="cuda")).sum()
    opt.zero_grad(); loss.backward(); opt.step()
