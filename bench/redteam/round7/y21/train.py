import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.dist import init_dist


def train(local_rank):
    model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 8, device="cuda")).sum()
        opt.zero_grad(); loss.backward(); opt.step()


if __name__ == "__main__":
    init_dist(train)
