import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import TensorDataset

from core.data import make_train_loader, run_epoch
from core.dist_utils import is_main, setup


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resume", default="")
    args = ap.parse_args()
    local_rank = setup()
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).cuda()
    if args.resume and os.path.exists(args.resume):
        model.load_state_dict(torch.load(args.resume, map_location=f"cuda:{local_rank}"))
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    loader = make_train_loader(TensorDataset(torch.randn(10000, 64), torch.randn(10000, 1)), 128)
    for epoch in range(10):
        run_epoch(model, loader, opt, epoch)
        if is_main():
            os.makedirs("ckpt", exist_ok=True)
            torch.save(model.module.state_dict(), "ckpt/last.pt")
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
