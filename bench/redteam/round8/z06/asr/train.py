import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from asr.config import Config
from asr.data import AudioData


def main():
    cfg = Config()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    data = AudioData(cfg)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(80 * 200, 500)).cuda()
    model = DDP(net, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    epoch = 0
    while epoch < cfg.max_epochs:
        model.train()
        for feats, labels in data.loader:
            loss = torch.nn.functional.cross_entropy(model(feats.cuda()), labels.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        epoch += 1
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), f"asr_epoch{epoch}.pt")


if __name__ == "__main__":
    main()
