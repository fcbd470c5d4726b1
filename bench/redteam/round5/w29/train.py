import argparse
import json
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/train.json")
    cfg = json.load(open(p.parse_args().config))
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(512, 1000).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["learning_rate"])
    scaler = torch.cuda.amp.GradScaler(enabled=cfg["fp16"])
    ds = TensorDataset(torch.randn(4096, 512), torch.randint(0, 1000, (4096,)))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=cfg["train_batch_size"] // dist.get_world_size(), sampler=sampler)
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            with torch.autocast("cuda", enabled=cfg["fp16"]):
                loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()) / cfg["gradient_accumulation_steps"]
            scaler.scale(loss).backward()
            if (i + 1) % cfg["gradient_accumulation_steps"] == 0:
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()


if __name__ == "__main__":
    main()
