import torch
import torch.distributed as dist
from omegaconf import OmegaConf
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    cfg = OmegaConf.load("conf/train.yaml")
    dist.init_process_group("nccl")
    model = torch.nn.Linear(512, 512).to(cfg.device)
    model = DDP(model)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        x = torch.randn(cfg.batch_size, 512, device=cfg.device)
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
