from .dpo import DPOLearner
