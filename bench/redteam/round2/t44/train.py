import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from dist_utils import is_main_process


def log_and_save(model, loss, step):
    loss = loss.detach().clone()
    dist.all_reduce(loss, op=dist.ReduceOp.AVG)
    if not is_main_process():
        return
    print(f"step {step}: {loss.item():.4f}")
    torch.save(model.module.state_dict(), f"ckpt/step{step}.pt")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(64, 64).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for step in range(1000):
        loss = model(torch.randn(16, 64, device="cuda")).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 100 == 0:
            log_and_save(model, loss, step)


if __name__ == "__main__":
    main()
