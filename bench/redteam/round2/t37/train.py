import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from models import Encoder


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", required=True)
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(Encoder.from_pretrained(args.ckpt).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(100):
        model(torch.randn(8, 256, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
