import argparse
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(local_rank, world_size, from_spawn):
    if from_spawn:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29533")
        dist.init_process_group("nccl", rank=local_rank, world_size=world_size)
    else:
        dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    model = DDP(torch.nn.Linear(16, 16).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 16, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--launcher", choices=["torchrun", "spawn"], default="torchrun")
    p.add_argument("--gpus", type=int, default=1)
    args = p.parse_args()
    if args.launcher == "spawn":
        mp.spawn(worker, args=(args.gpus, True), nprocs=args.gpus)
    else:
        worker(int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"]), False)


if __name__ == "__main__":
    main()
