from lightning.pytorch.strategies import DeepSpeedStrategy


def make_strategy(cfg):
    if cfg["zero"] == 3:
        return DeepSpeedStrategy(stage=3, offload_optimizer=True, offload_parameters=True, pin_memory=True)
    return DeepSpeedStrategy(stage=2, offload_optimizer=True)
