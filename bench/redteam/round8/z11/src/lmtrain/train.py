import functools
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from lmtrain.checkpoint import save_full


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)])
    model = FSDP(net, device_id=local_rank,
                 auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=1_000_000))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ds = TensorDataset(torch.randn(8192, 4096))
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=8, sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        save_full(model, f"export/epoch{epoch}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
