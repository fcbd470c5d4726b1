import os

import torch
from torch.distributed.fsdp import FullStateDictConfig, StateDictType
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class Hook:
    priority = 50

    def before_run(self, runner):
        pass

    def after_train_iter(self, runner):
        pass

    def after_train_epoch(self, runner):
        pass

    @staticmethod
    def every_n_epochs(runner, n):
        return (runner.epoch + 1) % n == 0 if n > 0 else False


class LoggerHook(Hook):
    priority = 90

    def __init__(self, interval=20):
        self.interval = interval

    def after_train_iter(self, runner):
        if runner.rank == 0 and runner.iter % self.interval == 0:
            print(f"epoch {runner.epoch} iter {runner.iter} loss {runner.last_loss:.4f}", flush=True)


class CheckpointHook(Hook):
    """Write a consolidated (full) state dict every `interval` epochs."""

    priority = 70

    def __init__(self, out_dir, interval=1):
        self.out_dir = out_dir
        self.interval = interval

    def before_run(self, runner):
        if runner.rank == 0:
            os.makedirs(self.out_dir, exist_ok=True)

    def after_train_epoch(self, runner):
        if not self.every_n_epochs(runner, self.interval):
            return
        if runner.rank != 0:
            return
        # rank0_only: only rank 0 materialises the full weights, offloaded to the CPU
        save_policy = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
        with FSDP.state_dict_type(runner.model, StateDictType.FULL_STATE_DICT, save_policy):
            state = runner.model.state_dict()
        torch.save(state, os.path.join(self.out_dir, f"epoch_{runner.epoch + 1}.pt"))
