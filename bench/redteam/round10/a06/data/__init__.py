from .loaders import build_dataloaders

__all__ = ["build_dataloaders"]
