from .base import BaseTrainer
from .checkpoint import CheckpointMixin
from .data import DataMixin


class ConformerTrainer(CheckpointMixin, DataMixin, BaseTrainer):
    """Conformer-CTC recipe: checkpoint and data hooks layered over the generic loop."""
