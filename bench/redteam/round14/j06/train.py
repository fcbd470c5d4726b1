"""EDSR x4 super-resolution on DIV2K, multi-node DDP."""
import argparse
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from engine import evaluate, train_one_epoch
from sr.data import PairedPatches
from sr.dist import init_distributed_mode, is_main_process
from sr.model import EDSR


def get_args():
    parser = argparse.ArgumentParser("EDSR training")
    parser.add_argument("--data_root", default="/datasets/DIV2K")
    parser.add_argument("--scale", type=int, default=4, choices=[2, 4])
    parser.add_argument("--n_blocks", type=int, default=32)
    parser.add_argument("--n_feats", type=int, default=256)
    parser.add_argument("--patch_size", type=int, default=48, help="LR patch size")
    parser.add_argument("--batch_size", type=int, default=16, help="per GPU")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--lr_decay_epochs", type=int, nargs="+", default=[200])
    parser.add_argument("--betas", type=float, nargs=2, default=(0.9, 0.999))
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=20, help="passes over the 800 train images per epoch")
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--eval_every", type=int, default=5)
    parser.add_argument("--save_dir", default="experiments/edsr_x4")
    parser.add_argument("--resume", default="")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def main():
    args = get_args()
    init_distributed_mode(args)
    device = torch.device("cuda", args.gpu)
    torch.manual_seed(args.seed + args.rank)

    train_set = PairedPatches(args.data_root, "train", args.scale, args.patch_size, args.repeat, train=True)
    val_set = PairedPatches(args.data_root, "valid", args.scale, train=False)
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.num_workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=1, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=2)

    model = EDSR(scale=args.scale, n_blocks=args.n_blocks, feats=args.n_feats).to(device)
    model = DDP(model, device_ids=[args.gpu])
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=tuple(args.betas))
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_decay_epochs, gamma=0.5)

    start_epoch = 0
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1

    os.makedirs(args.save_dir, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizer, device, epoch, args.log_every)
        scheduler.step()
        if (epoch + 1) % args.eval_every == 0:
            psnr = evaluate(model, val_loader, device, args.scale)
            if is_main_process():
                print(f"epoch {epoch}: val PSNR {psnr:.2f} dB")
                torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch},
                           os.path.join(args.save_dir, f"epoch_{epoch:04d}.pt"))


if __name__ == "__main__":
    main()
