from .trainer import CodeTrainer

__all__ = ["CodeTrainer"]
