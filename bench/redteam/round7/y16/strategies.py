from lightning.pytorch.strategies import DeepSpeedStrategy


class OffloadStrategy(DeepSpeedStrategy):
    def __init__(self, **kw):
        super().__init__(stage=2, offload_parameters=True, offload_optimizer=True, pin_memory=True, **kw)
