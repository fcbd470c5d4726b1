import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import Trainer


class Seq2Seq(nn.Module):
    def __init__(self, vocab=32000, dim=512):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.core = nn.Transformer(dim, 8, 6, 6, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src, tgt, teacher_forcing=True):
        return self.out(self.core(self.emb(src), self.emb(tgt)))


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)
    model = DDP(Seq2Seq().to(device), device_ids=[local_rank])
    opt = torch.optim.Adam(model.parameters(), 5e-4)
    src, tgt = torch.load("data/wmt_tok.pt", map_location="cpu")
    data = TensorDataset(src, tgt)
    loader = DataLoader(data, batch_size=32, sampler=DistributedSampler(data))
    trainer = Trainer(model, opt, loader, device)
    for epoch in range(30):
        trainer.train_epoch(epoch)


if __name__ == "__main__":
    main()
