import os

import hydra
import torch
import torch.distributed as dist
import torch.nn.functional as F
from omegaconf import DictConfig
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from data import KeywordSpottingDataset
from model import build_model


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg: DictConfig) -> None:
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device(cfg.trainer.device)
    torch.manual_seed(cfg.seed)

    dataset = KeywordSpottingDataset(cfg.data.root, split="train")
    sampler = DistributedSampler(dataset, shuffle=True, seed=cfg.seed)
    loader = DataLoader(dataset, batch_size=cfg.data.batch_size, sampler=sampler,
                        num_workers=cfg.data.num_workers, pin_memory=True, drop_last=True)

    model = DDP(build_model(cfg.model).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)

    for epoch in range(cfg.optim.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for step, (features, labels) in enumerate(loader):
            features = features.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(features), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if dist.get_rank() == 0 and step % cfg.trainer.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), f"kws_epoch{epoch:02d}.pt")
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
