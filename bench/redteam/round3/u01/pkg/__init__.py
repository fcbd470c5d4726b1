from .config import DEVICE, LR

__all__ = ["DEVICE", "LR"]
