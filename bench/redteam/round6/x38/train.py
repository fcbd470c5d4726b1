import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

LOCAL_RANK = int(os.environ["LOCAL_RANK"])


def data_worker(idx, queue):
    for i in range(100):
        queue.put(torch.randn(16, 32))


def main():
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(32, 32).cuda(), device_ids=[LOCAL_RANK])
    queue = mp.get_context("spawn").Queue(maxsize=8)
    ctx = mp.spawn(data_worker, args=(queue,), nprocs=2, join=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(queue.get().cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    ctx.join()


if __name__ == "__main__":
    main()
