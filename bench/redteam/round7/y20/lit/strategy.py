from lightning.pytorch.strategies import DeepSpeedStrategy


def build_ds_dict(stage=2):
    return {
        "zero_optimization": {"stage": stage},
        "gradient_accumulation_steps": 8,
        "train_micro_batch_size_per_gpu": 2,
    }


def make_strategy():
    return DeepSpeedStrategy(config=build_ds_dict())
