import torch.nn as nn
from omegaconf import DictConfig


def build_model(cfg: DictConfig) -> nn.Module:
    layers = []
    channels = cfg.n_mels
    for _ in range(cfg.depth):
        layers += [nn.Conv1d(channels, cfg.hidden, kernel_size=5, padding=2), nn.GELU()]
        channels = cfg.hidden
    return nn.Sequential(*layers, nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(cfg.hidden, cfg.n_classes))
