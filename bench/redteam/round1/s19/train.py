import os

import torch
import torch.distributed as dist
import wandb
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from tqdm import tqdm

LOG_EVERY = 50


def reduce_mean(t):
    t = t.detach().clone()
    dist.all_reduce(t)
    return t / dist.get_world_size()


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    main_proc = rank == 0
    if main_proc:
        wandb.init(project="mlp-ddp")
        os.makedirs("ckpt", exist_ok=True)
    model = DDP(torch.nn.Linear(128, 1).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = TensorDataset(torch.randn(100000, 128), torch.randn(100000, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=512, sampler=sampler)
    step = 0
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in tqdm(loader, disable=not main_proc):
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % LOG_EVERY == 0:
                avg = reduce_mean(loss)
                if main_proc:
                    wandb.log({"loss": avg.item(), "step": step})
        if main_proc:
            torch.save(model.module.state_dict(), f"ckpt/epoch{epoch}.pt")
        dist.barrier()
    if main_proc:
        wandb.finish()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
