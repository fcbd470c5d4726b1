"""DSL304 in a mixin: `core = getattr(self.model, "module", self.model)` then `core(**batch)` and backward in a
training-step mixin that never stores self.model; the trainer class built on it stores its `model` parameter
there, and the entry script passes it the DDP wrapper."""
from __future__ import annotations

STEP = """class StepMixin:
    def training_step(self, batch):
        core = getattr(self.model, "module", self.model)
        loss = core(batch).sum()
        loss.backward()
        self.optimizer.step()
"""
TRAINER = """from .step import StepMixin


class LMTrainer(StepMixin):
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
"""
TRAIN = """import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from engine.trainer import LMTrainer

dist.init_process_group("nccl")
net = torch.nn.Linear(2, 2).cuda()
model = MODEL
LMTrainer(model, torch.optim.SGD(net.parameters(), lr=0.1)).training_step(torch.zeros(2, 2))
"""


def rows(project, wrapped="DDP(net)", step=STEP):
    project.write({"engine/__init__.py": "", "engine/step.py": step, "engine/trainer.py": TRAINER,
                   "train.py": TRAIN.replace("MODEL", wrapped), "run.sh": "torchrun --nproc_per_node 2 train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL304"]).findings]


def test_the_unwrap_idiom_in_a_mixin_given_a_ddp_wrapper_bypasses_its_forward(project):
    assert rows(project) == [("engine/step.py", 4)]


def test_a_plain_module_or_a_forward_without_backward_is_clean(make_project):
    assert rows(make_project("plain"), wrapped="net") == []
    assert rows(make_project("eval"), step=STEP.replace("        loss.backward()\n", "")) == []
