"""GPU-side augmentation and the backbone of the crop classifier."""
from .models import CropNet
from .transforms import normalize_batch, random_flip

__all__ = ["CropNet", "normalize_batch", "random_flip"]
