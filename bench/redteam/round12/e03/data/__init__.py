from .loader import PrefetchLoader, build_dataloader

__all__ = ["PrefetchLoader", "build_dataloader"]
