import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from speech.callbacks import LinearWarmup, ThroughputLogger
from speech.settings import TrainSettings
from speech.trainer import Trainer


def build_model():
    return nn.Sequential(nn.Conv1d(40, 128, 3, padding=1), nn.BatchNorm1d(128), nn.ReLU(),
                         nn.Conv1d(128, 128, 3, padding=1), nn.BatchNorm1d(128), nn.ReLU(),
                         nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(128, 12))


def main():
    settings = TrainSettings()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")

    feats, labels = torch.load(settings.manifest, map_location="cpu")
    dataset = TensorDataset(feats, labels)
    sampler = DistributedSampler(dataset, drop_last=True)
    loader = DataLoader(dataset, batch_size=settings.batch_size, sampler=sampler,
                        num_workers=settings.num_workers, pin_memory=True)

    model = nn.SyncBatchNorm.convert_sync_batchnorm(build_model()).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr)
    callbacks = [LinearWarmup(500), ThroughputLogger(settings.log_every)]
    Trainer(model, optimizer, loader, settings, callbacks).fit()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
