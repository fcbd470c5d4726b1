import os
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from ckpt import save_full


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(4)])
    model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=torch.cuda.current_device())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(1000):
        loss = model(torch.randn(8, 1024, device="cuda")).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 100 == 0:
            save_full(model, f"ckpt_{step}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
