import os
import hydra
import torch
import torch.distributed as dist
from omegaconf import DictConfig
from torch.nn.parallel import DistributedDataParallel as DDP


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device(f"{cfg.trainer.device}:{local_rank}")
    torch.cuda.set_device(device)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(cfg.model.width, cfg.model.width).to(device), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(100):
        with torch.autocast("cuda", enabled=cfg.trainer.amp):
            loss = model(torch.randn(8, cfg.model.width, device=device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
