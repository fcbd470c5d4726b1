from .data import PreferencePairs, pair_collate
from .trainer import DPOTrainer

__all__ = ["DPOTrainer", "PreferencePairs", "pair_collate"]
