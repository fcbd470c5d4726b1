import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from asr.builders import build_train_loader
from asr.trainer import Trainer


class Features(torch.utils.data.Dataset):
    def __init__(self, path):
        self.items = torch.load(path, map_location="cpu")

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    @staticmethod
    def collate(batch):
        feats = nn.utils.rnn.pad_sequence([b[0] for b in batch], batch_first=True)
        targets = torch.cat([b[1] for b in batch])
        return feats, torch.tensor([len(b[0]) for b in batch]), targets, torch.tensor([len(b[1]) for b in batch])


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    model = nn.Sequential(nn.Linear(80, 512), nn.ReLU(), nn.Linear(512, 32)).to(device)
    model = DistributedDataParallel(model, device_ids=[local_rank])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = build_train_loader(Features("data/train_feats.pt"), batch_size=16)
    Trainer(model, opt, loader, max_epochs=50, device=device).fit()


if __name__ == "__main__":
    main()
