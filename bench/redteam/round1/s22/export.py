import deepspeed
import torch


def export_fp32(engine, path):
    params = list(engine.module.parameters())
    with deepspeed.zero.GatheredParameters(params, modifier_rank=None):
        if engine.global_rank == 0:
            torch.save({k: v.float().cpu() for k, v in engine.module.state_dict().items()}, path)
