from .data import PackedTokens
from .model import build_model

__all__ = ["PackedTokens", "build_model"]
