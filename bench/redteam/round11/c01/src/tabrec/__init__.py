"""Rating prediction on MovieLens with a NeuMF-style model."""
__version__ = "0.3.0"
