import os

import numpy as np
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def _load_split(root: str, split: str) -> TensorDataset:
    feats = np.load(os.path.join(root, f"{split}_feats.npy"))
    labels = np.load(os.path.join(root, f"{split}_labels.npy"))
    return TensorDataset(torch.from_numpy(feats).float(), torch.from_numpy(labels).long())


def build_train_loader(cfg: dict) -> DataLoader:
    train_set = _load_split(cfg["features"], "train")
    sampler = DistributedSampler(train_set, shuffle=True)
    return DataLoader(train_set, batch_size=cfg["batch_size"], sampler=sampler,
                      num_workers=4, pin_memory=True, drop_last=True)


def build_eval_loader(cfg: dict) -> DataLoader:
    eval_set = _load_split(cfg["features"], "test")
    return DataLoader(eval_set, batch_size=256, num_workers=2)
