import torch
from torch.utils.data import DataLoader, TensorDataset


def build_dataloader(cfg):
    ds = TensorDataset(torch.randn(cfg.size, 16), torch.randint(0, 2, (cfg.size,)))
    return DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, num_workers=2)
