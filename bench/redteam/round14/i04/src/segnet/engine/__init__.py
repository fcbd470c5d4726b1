from .base import BaseTrainer
from .evaluation import EvalMixin


class SegTrainer(EvalMixin, BaseTrainer):
    pass
