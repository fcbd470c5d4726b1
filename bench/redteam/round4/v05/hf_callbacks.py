import torch.distributed as dist
from transformers import TrainerCallback


class SyncCallback(TrainerCallback):
    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        if state.is_world_process_zero:
            print(metrics)
            dist.barrier()
