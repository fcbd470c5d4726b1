import hydra
import torch
import torch.distributed as dist
from omegaconf import DictConfig
from torch.nn.parallel import DistributedDataParallel as DDP


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    device = torch.device(cfg.device)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(16, 16).to(device), device_ids=[device.index])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    for _ in range(cfg.steps):
        loss = model(torch.randn(8, 16, device=device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
