import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from state import TrainState


def train_step(state: TrainState, x, y):
    logits = state.model.module(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    loss.backward()
    state.optimizer.step()
    state.optimizer.zero_grad()
    state.step += 1
    return loss


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
    ddp = DDP(net, device_ids=[local_rank])
    state = TrainState(model=ddp, optimizer=torch.optim.Adam(ddp.parameters(), lr=1e-3))
    for _ in range(1000):
        x = torch.randn(64, 784, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        train_step(state, x, y)


if __name__ == "__main__":
    main()
