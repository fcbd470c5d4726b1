import argparse
import os

import torch.multiprocessing as mp

from engine.worker import worker
from utils.env import find_free_port


def parse_args():
    p = argparse.ArgumentParser(description="WRN-50-2 on CIFAR-100, one process per GPU")
    p.add_argument("--gpus", default="0,1,2,3", help="comma-separated physical GPU ids")
    p.add_argument("--data", required=True)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--out", default="runs/wrn")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = parse_args()
    gpus = args.gpus.split(",")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(find_free_port()))
    # spawn: each worker is a fresh interpreter, so CUDA is untouched until pin_visible_gpu has run
    mp.spawn(worker, args=(gpus, args), nprocs=len(gpus), join=True)


if __name__ == "__main__":
    main()
