from .dist import is_main
from .ckpt import maybe_save
