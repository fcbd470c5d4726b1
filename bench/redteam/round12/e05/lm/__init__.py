from .checkpoint import CheckpointManager
from .model import GPT, GPTConfig

__all__ = ["CheckpointManager", "GPT", "GPTConfig"]
