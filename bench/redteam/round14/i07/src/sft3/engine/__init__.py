from .trainer import Zero3Trainer

__all__ = ["Zero3Trainer"]
