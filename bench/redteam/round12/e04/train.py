import argparse
import json
import os

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from forecast.data import make_loaders
from forecast.model import PatchTST
from utils.dist import is_main_process, master_only, reduce_dict, setup
from utils.early_stopping import EarlyStopping


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    mse = torch.zeros((), device=device)
    mae = torch.zeros((), device=device)
    n = torch.zeros((), device=device)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        pred = model(x)
        mse += F.mse_loss(pred, y, reduction="sum")
        mae += F.l1_loss(pred, y, reduction="sum")
        n += y.numel()
    stats = reduce_dict({"mse": mse, "mae": mae, "n": n}, average=False)
    model.train()
    return {"mse": (stats["mse"] / stats["n"]).item(), "mae": (stats["mae"] / stats["n"]).item()}


@master_only
def log_epoch(epoch, train_loss, metrics, out_dir):
    line = json.dumps({"epoch": epoch, "train_loss": train_loss, **metrics})
    print(line, flush=True)
    with open(os.path.join(out_dir, "log.jsonl"), "a") as f:
        f.write(line + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/etth1.json")
    parser.add_argument("--out", default="runs/etth1")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    device = setup()
    if is_main_process():
        os.makedirs(args.out, exist_ok=True)
    train_loader, val_loader = make_loaders(cfg)
    model = DDP(PatchTST(cfg["context"], cfg["horizon"]).to(device), device_ids=[device.index])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.05)
    stopper = EarlyStopping(patience=cfg["patience"], device=device)

    best = float("inf")
    for epoch in range(cfg["epochs"]):
        train_loader.sampler.set_epoch(epoch)
        running = 0.0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = F.mse_loss(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.item()
        metrics = validate(model, val_loader, device)
        log_epoch(epoch, running / len(train_loader), metrics, args.out)
        if is_main_process() and metrics["mse"] < best:
            best = metrics["mse"]
            torch.save(model.module.state_dict(), os.path.join(args.out, "best.pt"))
        if stopper.step(metrics["mse"]):
            break


if __name__ == "__main__":
    main()
