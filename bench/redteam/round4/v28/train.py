import os
import torch
import torch.distributed as dist
from jsonargparse import CLI
from torch.nn.parallel import DistributedDataParallel as DDP


def main(ckpt: str = "init.pt", lr: float = 1e-3, steps: int = 100):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    net = torch.nn.Linear(32, 32)
    net.load_state_dict(torch.load(ckpt))
    model = DDP(net.cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        loss = model(torch.randn(8, 32, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    CLI(main)
