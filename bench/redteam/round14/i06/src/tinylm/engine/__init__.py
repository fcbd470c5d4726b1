from .trainer import PretrainTrainer

__all__ = ["PretrainTrainer"]
