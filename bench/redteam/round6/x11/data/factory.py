import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_train_loader(cfg):
    ds = TensorDataset(torch.randn(10000, 3, 32, 32), torch.randint(0, 10, (10000,)))
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=DistributedSampler(ds),
                      num_workers=cfg.workers, pin_memory=True)
