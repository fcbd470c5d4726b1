import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP

from segm.data import build_dataloader
from segm.models.unet import UNet
from segm.utils.dist import init_distributed
from segm.utils.env import setup_env


@torch.no_grad()
def miou(model, loader, num_classes, device):
    model.eval()
    hist = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    for img, lbl in loader:
        img, lbl = img.to(device), lbl.to(device)
        pred = model(img).argmax(1)
        keep = lbl != 255
        hist += torch.bincount(lbl[keep] * num_classes + pred[keep], minlength=num_classes ** 2).view_as(hist)
    dist.all_reduce(hist)
    model.train()
    iou = hist.diag() / (hist.sum(0) + hist.sum(1) - hist.diag()).clamp(min=1)
    return iou.mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/cityscapes_unet.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    setup_env(cfg["seed"], deterministic=cfg.get("deterministic", False))
    rank, local_rank, world_size = init_distributed()
    device = torch.device("cuda", local_rank)

    train_loader, train_sampler = build_dataloader(cfg["data"], is_train=True)
    val_loader, _ = build_dataloader(cfg["data"], is_train=False)
    model = UNet(num_classes=cfg["num_classes"], grad_ckpt=cfg["grad_ckpt"])
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).cuda()
    model = DDP(model, device_ids=[local_rank], find_unused_parameters=False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    total = cfg["epochs"] * len(train_loader)
    scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=total, power=0.9)

    for epoch in range(cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        for img, lbl in train_loader:
            img, lbl = img.cuda(non_blocking=True), lbl.cuda(non_blocking=True)
            loss = F.cross_entropy(model(img), lbl, ignore_index=255)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        if (epoch + 1) % cfg["eval_every"] == 0:
            score = miou(model, val_loader, cfg["num_classes"], device)
            if rank == 0:
                print(f"epoch {epoch + 1}: loss {loss.item():.4f} mIoU {score:.4f}", flush=True)
                torch.save(model.module.state_dict(), f"unet_cityscapes_e{epoch + 1}.pth")


if __name__ == "__main__":
    main()
