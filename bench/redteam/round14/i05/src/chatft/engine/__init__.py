from .trainer import SFTTrainer

__all__ = ["SFTTrainer"]
