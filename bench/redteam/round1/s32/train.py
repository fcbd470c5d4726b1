import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


@torch.no_grad()
def evaluate(model, dataset):
    loader = DataLoader(dataset, batch_size=256)
    model.eval()
    total = 0.0
    for x, y in loader:
        total += torch.nn.functional.mse_loss(model(x.cuda()), y.cuda(), reduction="sum").item()
    return total / len(dataset)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(16, 1).cuda(), device_ids=[local_rank])
    train = TensorDataset(torch.randn(50000, 16), torch.randn(50000, 1))
    held_out = TensorDataset(torch.randn(5000, 16), torch.randn(5000, 1))
    sampler = DistributedSampler(train)
    loader = DataLoader(train, batch_size=128, sampler=sampler)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            print(epoch, evaluate(model.module, held_out))
        dist.barrier()


if __name__ == "__main__":
    main()
