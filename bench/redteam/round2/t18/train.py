import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.dist import main_process_only


@main_process_only
def log_metrics(step, loss):
    loss = loss.detach().clone()
    dist.all_reduce(loss)
    print(f"step {step} loss {loss.item() / dist.get_world_size():.4f}")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(128, 128).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for step in range(1000):
        loss = model(torch.randn(32, 128, device="cuda")).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 50 == 0:
            log_metrics(step, loss)


if __name__ == "__main__":
    main()
