import os

import torch
import torch.distributed as dist

import parallel_state as ps

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
ps.initialize(tp_size=2)

shard = torch.nn.Linear(1024, 512).cuda()
opt = torch.optim.AdamW(shard.parameters(), lr=1e-4)
for step in range(100):
    x = torch.randn(8, 1024, device="cuda")
    out = shard(x)
    dist.all_reduce(out, group=ps.tp_group())
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    for p in shard.parameters():
        dist.all_reduce(p.grad, group=ps.dp_group())
    opt.step()
    if ps.tp_rank() == 0 and step % 10 == 0:
        stat = loss.detach().clone()
        dist.all_reduce(stat, group=ps.dp_group())
        print(stat.item())
