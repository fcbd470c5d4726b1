import argparse
import os

import torch
import torch.distributed as dist

from core.experiment import Experiment
from core.runtime import Runtime

# K, climatology of the training years
T2M_MEAN, T2M_STD = 278.4, 21.3


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--out", default="runs/t2m")
    return parser.parse_args()


def latitude_weights(n_lat=181):
    lat = torch.linspace(-90.0, 90.0, n_lat, device="cuda")
    w = torch.cos(torch.deg2rad(lat))
    return (w / w.mean())[:, None]


@torch.no_grad()
def evaluate(model, loader, lat_w):
    model.eval()
    err = torch.zeros(2, device="cuda")
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        pred = model((x - T2M_MEAN) / T2M_STD) * T2M_STD + T2M_MEAN
        err[0] += (lat_w * (pred - y) ** 2).sum()
        err[1] += y.numel()
    dist.all_reduce(err)
    return (err[0] / err[1]).sqrt().item()


def main():
    args = parse_args()
    exp = Experiment(args)
    torch.cuda.reset_peak_memory_stats()
    lat_w = latitude_weights()
    dist.barrier()

    for epoch in range(args.epochs):
        exp.train_sampler.set_epoch(epoch)
        exp.model.train()
        for x, y in exp.train_loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            pred = exp.model((x - T2M_MEAN) / T2M_STD)
            loss = (lat_w * (pred - (y - T2M_MEAN) / T2M_STD).abs()).mean()
            exp.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            exp.optimizer.step()
            exp.ema.update(exp.model.module)
        rmse = evaluate(exp.ema.shadow, exp.val_loader, lat_w)
        if Runtime.is_main():
            peak = torch.cuda.max_memory_allocated() / 2**30
            print(f"epoch {epoch}: l1 {loss.item():.4f}  ema rmse {rmse:.3f} K  peak {peak:.1f} GiB", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save(exp.ema.shadow.state_dict(), os.path.join(args.out, "ema.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
