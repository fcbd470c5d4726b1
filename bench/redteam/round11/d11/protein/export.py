import os

import deepspeed
import torch


def export_state_dict(engine, out_dir: str):
    """Gather the ZeRO-3 shards and write one consolidated state_dict from rank 0.

    Every rank must enter GatheredParameters (it all-gathers); only rank 0 writes.
    """
    params = list(engine.module.parameters())
    with deepspeed.zero.GatheredParameters(params, modifier_rank=None):
        if engine.global_rank == 0:
            os.makedirs(out_dir, exist_ok=True)
            state = {k: v.detach().cpu().clone() for k, v in engine.module.state_dict().items()}
            torch.save(state, os.path.join(out_dir, "pytorch_model.bin"))
    torch.distributed.barrier()
