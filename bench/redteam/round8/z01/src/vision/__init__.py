from .config import TrainCfg

__all__ = ["TrainCfg"]
