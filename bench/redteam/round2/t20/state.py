from dataclasses import dataclass

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


@dataclass
class TrainState:
    model: DDP
    optimizer: torch.optim.Optimizer
    step: int = 0
