import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from asr.validation import WerValidation
from data import SpeechDataset, collate


class Trainer:
    def __init__(self, model, optimizer, device, callbacks):
        self.model, self.optimizer, self.device, self.callbacks = model, optimizer, device, callbacks

    def fit(self, loader, sampler, epochs):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            self.model.train()
            for feats, feat_lens, targets, target_lens in loader:
                log_probs = self.model(feats.to(self.device)).log_softmax(-1)
                loss = F.ctc_loss(log_probs.transpose(0, 1), targets, feat_lens, target_lens)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            for cb in self.callbacks:
                wer = cb.on_epoch_end(self, epoch)
                if wer is not None and dist.get_rank() == 0:
                    print(f"epoch {epoch}: dev WER {wer:.3%}")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)
    train_set, dev_set = SpeechDataset("manifests/train.tsv"), SpeechDataset("manifests/dev.tsv")
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, collate_fn=collate, num_workers=4)
    dev_loader = DataLoader(dev_set, batch_size=32, sampler=DistributedSampler(dev_set, shuffle=False),
                            collate_fn=collate, num_workers=4)
    model = nn.Sequential(nn.Linear(80, 80), nn.ReLU(), nn.Linear(80, 29)).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    Trainer(model, optimizer, device, [WerValidation(dev_loader)]).fit(loader, sampler, epochs=50)


if __name__ == "__main__":
    main()
