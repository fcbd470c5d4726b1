from .data import DataMixin
from .dist import DistributedMixin
from .loop import LoopMixin


class Trainer(DistributedMixin, DataMixin, LoopMixin):
    """Process group and DDP (DistributedMixin), loaders (DataMixin), epochs (LoopMixin)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.epoch = 0


__all__ = ["Trainer"]
