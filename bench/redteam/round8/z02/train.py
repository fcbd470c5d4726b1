import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from trainer import Checkpointer


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(1024, 1024).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ckpt = Checkpointer("checkpoints", model, opt)
    start = ckpt.resume()
    ds = TensorDataset(torch.randn(4096, 1024))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=32, sampler=sampler)
    step = start
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        if dist.get_rank() == 0:
            ckpt.save(step)
        dist.barrier()


if __name__ == "__main__":
    main()
