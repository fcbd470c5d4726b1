import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from dist import setup


def main():
    local_rank = setup()
    model = DDP(torch.nn.Linear(64, 2).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(16, 64, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "best.pt")


if __name__ == "__main__":
    main()
