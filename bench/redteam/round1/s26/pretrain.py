import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler

from optim_factory import create_optimizer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local_rank", type=int, default=-1)
    ap.add_argument("--lr", type=float, default=1.5e-4)
    args = ap.parse_args()
    deepspeed.init_distributed()
    model = torch.hub.load("facebookresearch/dino:main", "dino_vitb16")
    optimizer = create_optimizer(model, args.lr)
    engine, optimizer, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config="ds.json")
    data = torch.load("data/patches.pt", map_location="cpu")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for x in loader:
            loss = engine(x.to(engine.device).half()).pow(2).mean()
            engine.backward(loss)
            engine.step()


if __name__ == "__main__":
    main()
