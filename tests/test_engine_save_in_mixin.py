"""DSL502 through a mixin: `checkpoint.save(self.engine, ...)` in a mixin, where the trainer class built on it
binds `self.engine` to deepspeed.initialize's engine, and the checkpoint helper returns early on every rank but 0."""
from __future__ import annotations

CHECKPOINT = """import torch.distributed as dist


def save(engine, output_dir, step):
    if dist.get_rank() != 0:
        return
    engine.save_checkpoint(output_dir, tag=f"step_{step}")
"""
MIXIN = """import checkpoint


class CheckpointMixin:
    def maybe_save(self, step):
        checkpoint.save(self.HELD, "out", step)
"""
TRAINER = """import deepspeed

from mixins import CheckpointMixin


class SFTTrainer(CheckpointMixin):
    def __init__(self, model, config):
        self.engine, self.optimizer, _, _ = deepspeed.initialize(model=model, config=config)
        self.model = model
"""
TRAIN = """from trainer import SFTTrainer

SFTTrainer(None, "ds.json").maybe_save(1)
"""


def rows(project, held="engine"):
    project.write({"checkpoint.py": CHECKPOINT, "mixins.py": MIXIN.replace("HELD", held), "trainer.py": TRAINER,
                   "train.py": TRAIN, "ds.json": '{"train_micro_batch_size_per_gpu": 1}',
                   "run.sh": "deepspeed --num_gpus 2 train.py\n"})
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL502"]).findings]


def test_a_mixin_passing_the_engine_its_trainer_stores_to_a_rank_zero_save(project):
    [(path, row, message)] = rows(project)
    assert (path, row) == ("checkpoint.py", 7)
    assert message.endswith("(mixins.py:6 passes it the engine of deepspeed.initialize)")


def test_a_mixin_passing_another_attribute_is_clean(project):
    assert rows(project, held="model") == []
