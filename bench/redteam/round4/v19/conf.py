STRATEGY_KW = dict(stage=3, offload_optimizer=True, offload_parameters=True)
DEVICES = 4
