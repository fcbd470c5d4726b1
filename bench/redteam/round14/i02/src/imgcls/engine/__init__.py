from .base import BaseTrainer
from .mixins import CheckpointMixin, EvalMixin, TrainLoopMixin


class ClassifierTrainer(TrainLoopMixin, EvalMixin, CheckpointMixin, BaseTrainer):
    """Supervised image classification trainer."""


__all__ = ["BaseTrainer", "ClassifierTrainer"]
