from .stream import build_loader
