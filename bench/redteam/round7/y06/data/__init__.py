from .loaders import make_loader
