from .registry import build, register_model
from . import mlp  # noqa: F401
