from .trainer import OffloadTrainer

__all__ = ["OffloadTrainer"]
