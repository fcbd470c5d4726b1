"""DSL101 through a config instance handed to a helper of another module: `FSDP(..., device_id=cfg.device_id)`
where every caller passes `FSDPConfig.from_args(args)` (a classmethod building `cls(...)`) or `FSDPConfig()`
and the dataclass defaults the field to GPU 0."""
from __future__ import annotations

CONFIG = '''from dataclasses import dataclass


@dataclass
class FSDPConfig:
    sharding: str = "full"
    device_id: int = 0

    @classmethod
    def from_args(cls, args):
        return cls(KEYWORDS)
'''
WRAP = '''from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def shard_model(model, cfg):
    return FSDP(model, sharding_strategy=cfg.strategy(), device_id=cfg.device_id)
'''
TRAIN = '''import argparse
import os

import torch
import torch.distributed as dist

from configs import FSDPConfig
from wrapping import shard_model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sharding", default="full")
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = shard_model(torch.nn.Linear(2, 2), BUILT)


if __name__ == "__main__":
    main()
'''


def rows(project, built="FSDPConfig.from_args(args)", keywords="sharding=args.sharding", launch=8):
    project.write({"configs.py": CONFIG.replace("KEYWORDS", keywords), "wrapping.py": WRAP,
                   "train.py": TRAIN.replace("BUILT", built),
                   "run.sh": f"torchrun --nproc_per_node {launch} train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL101"]).findings]


def test_a_classmethod_built_config_keeping_the_gpu_0_default_is_reported_at_the_helper(project):
    assert rows(project) == [("wrapping.py", 5)]


def test_a_fresh_instance_keeping_the_default_is_reported(project):
    assert rows(project, built="FSDPConfig()") == [("wrapping.py", 5)]


def test_a_factory_or_caller_that_sets_the_field_is_silent(make_project):
    assert rows(make_project("factory"), keywords="sharding=args.sharding, device_id=int(os.environ['LOCAL_RANK'])") == []
    assert rows(make_project("caller"), built="FSDPConfig(device_id=local_rank)") == []
    assert rows(make_project("any"), keywords="**vars(args)") == []


def test_one_process_is_silent(project):
    assert rows(project, launch=1) == []


DEVICE_CONFIG = '''from dataclasses import dataclass


@dataclass
class TrainConfig:
    epochs: int = 20
    device: str = "cuda:0"
'''
TRAINER = '''import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, cfg, model):
        self.cfg = cfg
        self.device = torch.device(cfg.device)
        self.model = DDP(model.to(self.device))
'''
REPLACE_TRAIN = '''import dataclasses
import os

import torch
import torch.distributed as dist

from configs import TrainConfig
from trainer import Trainer

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
cfg = dataclasses.replace(TrainConfig(), KEYWORDS)
Trainer(cfg, torch.nn.Linear(2, 2))
'''


def trainer_rows(project, keywords="epochs=3", launch=4):
    project.write({"configs.py": DEVICE_CONFIG, "trainer.py": TRAINER,
                   "train.py": REPLACE_TRAIN.replace("KEYWORDS", keywords),
                   "run.sh": f"torchrun --nproc_per_node {launch} train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL101"]).findings]


def test_a_string_device_default_kept_through_dataclasses_replace_into_a_class_is_reported(project):
    assert trainer_rows(project) == [("trainer.py", 8)]


def test_replace_setting_the_device_or_one_process_is_silent(make_project):
    assert trainer_rows(make_project("set"), keywords="device=f\"cuda:{os.environ['LOCAL_RANK']}\"") == []
    assert trainer_rows(make_project("any"), keywords="**{}") == []
    assert trainer_rows(make_project("one"), launch=1) == []
