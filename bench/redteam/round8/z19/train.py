import glob
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.sync import publish_manifest


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    shards = publish_manifest("work/manifest.json", sorted(glob.glob("/data/tokens/*.bin")))
    mine = shards[dist.get_rank()::dist.get_world_size()]
    model = DDP(torch.nn.Linear(512, 512).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step, shard in enumerate(mine):
        x = torch.randn(16, 512, device="cuda")
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
