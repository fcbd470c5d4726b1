import numpy as np
import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    def __init__(self, series: np.ndarray, context: int, horizon: int):
        self.series = torch.from_numpy(series).float()
        self.context = context
        self.horizon = horizon

    def __len__(self):
        return self.series.shape[0] - self.context - self.horizon + 1

    def __getitem__(self, i):
        x = self.series[i : i + self.context]
        y = self.series[i + self.context : i + self.context + self.horizon]
        return x, y


def build_datasets(data_cfg: dict):
    series = np.load(data_cfg["series_path"])
    series = (series - series.mean(0)) / (series.std(0) + 1e-6)
    split = int(len(series) * (1 - data_cfg["val_fraction"]))
    train = WindowDataset(series[:split], data_cfg["context"], data_cfg["horizon"])
    val = WindowDataset(series[split - data_cfg["context"] :], data_cfg["context"], data_cfg["horizon"])
    return train, val
