import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from curriculum.data import build_train_loader


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(64, 64).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_loader = build_train_loader(batch_size=64)
    for epoch in range(8):
        for x, lengths in train_loader:
            loss = (model(x.cuda()).pow(2).mean(dim=1) * lengths.cuda().float().reciprocal()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            print("epoch", epoch, loss.item())


if __name__ == "__main__":
    main()
