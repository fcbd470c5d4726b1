from .loader import build_loaders

__all__ = ["build_loaders"]
