import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(0)
    model = DDP(torch.nn.Linear(8, 8).cuda(), device_ids=[0])
    model.load_state_dict(torch.load("init.pt"))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(2, 8, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
