from .pipeline import build_loader
