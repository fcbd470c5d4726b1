from .hooks import CheckpointHook, LrWarmupHook
from .loop import Trainer

__all__ = ["CheckpointHook", "LrWarmupHook", "Trainer"]
