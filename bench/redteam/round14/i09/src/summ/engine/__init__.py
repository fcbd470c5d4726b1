from .trainer import SummarizationTrainer

__all__ = ["SummarizationTrainer"]
