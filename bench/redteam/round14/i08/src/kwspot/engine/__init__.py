from .base import BaseTrainer
from .hooks import SamplerHooks
from .loops import TrainLoopMixin


class KWSTrainer(SamplerHooks, TrainLoopMixin, BaseTrainer):
    pass


__all__ = ["KWSTrainer"]
