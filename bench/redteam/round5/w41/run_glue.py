import argparse
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def load_and_cache_examples(local_rank):
    if local_rank not in [-1, 0]:
        dist.barrier()  # make sure only the first process in distributed training processes the dataset
    if not os.path.exists("cached.pt"):
        torch.save(torch.randn(1000, 128), "cached.pt")
    if local_rank == 0:
        dist.barrier()
    return torch.load("cached.pt", map_location="cpu")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
    args = p.parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group("nccl")
    data = load_and_cache_examples(args.local_rank)
    model = DDP(torch.nn.Linear(128, 2).cuda(), device_ids=[args.local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sampler = torch.utils.data.DistributedSampler(data)
    loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
    for x in loader:
        loss = model(x.cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
