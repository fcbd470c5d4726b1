import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from trainkit import ckpt

RUN_DIR = os.environ.get("RUN_DIR", "runs/mlp")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = nn.Sequential(nn.Linear(784, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    step = ckpt.resume(RUN_DIR, model, optimizer, scaler)
    model = DDP(model, device_ids=[local_rank])

    data = TensorDataset(torch.randn(60000, 784), torch.randint(0, 10, (60000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=256, sampler=sampler, drop_last=True)
    epoch = step // len(loader)
    while step < 50_000:
        sampler.set_epoch(epoch)
        for x, y in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            step += 1
            if step % 5000 == 0 and dist.get_rank() == 0:
                ckpt.save(RUN_DIR, step, model.module, optimizer, scaler)
        epoch += 1
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
