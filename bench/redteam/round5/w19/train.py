import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Embedding(50000, 512).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(100):
        x = torch.randint(0, 50000, (8, 128), device="cuda")
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
