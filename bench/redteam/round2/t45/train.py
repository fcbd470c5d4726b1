import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from config import TrainConfig


def main():
    cfg = TrainConfig()
    torch.cuda.set_device(cfg.local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(32, 32).to(cfg.device), device_ids=[cfg.local_rank])
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for _ in range(cfg.epochs):
        model(torch.randn(8, 32, device=cfg.device)).sum().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
