from .loaders import make_train_loader

__all__ = ["make_train_loader"]
