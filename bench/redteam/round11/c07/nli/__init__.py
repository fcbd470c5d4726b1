from .trainer import NLITrainer

__all__ = ["NLITrainer"]
