import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from transformers import SegformerForSemanticSegmentation

from seg.data import Cityscapes
from seg.runtime import Runtime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    with open(parser.parse_args().config) as f:
        cfg = yaml.safe_load(f)

    rt = Runtime()
    torch.cuda.set_device(rt.local_rank)
    dist.init_process_group("nccl", init_method="env://", rank=rt.rank, world_size=rt.world_size)
    device = torch.device("cuda", rt.local_rank)

    train_set = Cityscapes(cfg["data_root"], "train", crop=cfg["crop"])
    sampler = DistributedSampler(train_set, num_replicas=rt.world_size, rank=rt.rank, shuffle=True)
    loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=sampler,
                        num_workers=cfg["num_workers"], pin_memory=True, drop_last=True)

    model = SegformerForSemanticSegmentation.from_pretrained("nvidia/mit-b2", num_labels=cfg["num_classes"])
    model = DDP(model.to(device), device_ids=[rt.local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    total = cfg["epochs"] * len(loader)
    scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=total, power=1.0)

    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        model.train()
        for images, labels in loader:
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            logits = model(pixel_values=images).logits
            logits = F.interpolate(logits, size=labels.shape[-2:], mode="bilinear", align_corners=False)
            loss = F.cross_entropy(logits, labels, ignore_index=255)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        if rt.is_main:
            print(f"epoch {epoch}: loss {loss.item():.4f}", flush=True)
            os.makedirs(cfg["out_dir"], exist_ok=True)
            model.module.save_pretrained(cfg["out_dir"])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
