"""Multi-GPU training on one machine without a launcher: python train_spawn.py --gpus 4"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

CONFIG = {
    "device": "cuda:0",
    "lr": 3e-4,
    "epochs": 20,
    "init_from": "pretrained/encoder.pt",
}


def worker(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    model.load_state_dict(torch.load(CONFIG["init_from"]))
    model = DDP(model.to(CONFIG["device"]))
    data = TensorDataset(torch.randn(10000, 512), torch.randint(0, 10, (10000,)))
    sampler = DistributedSampler(data, num_replicas=world_size, rank=rank)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), CONFIG["lr"])
    for epoch in range(CONFIG["epochs"]):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    args = ap.parse_args()
    mp.spawn(worker, args=(args.gpus,), nprocs=args.gpus)
