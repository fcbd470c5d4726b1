from .sft import build_sft_dataset

__all__ = ["build_sft_dataset"]
