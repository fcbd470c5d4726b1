from .trainer import LMTrainer

__all__ = ["LMTrainer"]
