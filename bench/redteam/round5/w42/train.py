import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

LOAD_KW = {"map_location": "cpu", "weights_only": True}


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(64, 64)
    net.load_state_dict(torch.load("init.pt", **LOAD_KW))
    model = DDP(net.cuda(), device_ids=[local_rank])
    ds = TensorDataset(torch.randn(8192, 64))
    sampler = DistributedSampler(ds)
    workers = max(1, os.cpu_count() // int(os.environ["LOCAL_WORLD_SIZE"]) - 1)
    loader = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=workers)
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
