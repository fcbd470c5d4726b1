"""A module's function named for a model is no model (DSL401), and a backend from a module constant is
that backend (DSL104)."""
from __future__ import annotations

EVAL = """import torch
from src import beir_utils


def eval_model(encoder, eval_datasets):
    encoder.eval()
    for name in eval_datasets:
        beir_utils.evaluate_model(encoder, dataset=name)


def train(encoder):
    for step in range(3):
        eval_model(encoder, ["a"])
"""


def test_a_module_function_named_evaluate_model_is_no_forward(project):
    project.write({"src/__init__.py": "", "src/beir_utils.py": "def evaluate_model(m, dataset):\n    return m\n",
                   "train.py": EVAL})
    assert [f.code for f in project.check(select=["DSL401"]).findings] == []


NCCL = """import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

BACKEND = "nccl"


def worker(rank, world):
    dist.init_process_group(BACKEND, init_method="env://", rank=rank, world_size=world)
    model = torch.nn.Linear(8, 8).cuda()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
"""


def test_a_backend_constant_is_read_as_its_value(project):
    project.write({"train.py": NCCL})
    assert [f.code for f in project.check(select=["DSL104"]).findings] == ["DSL104"]
    project.write({"train.py": NCCL.replace('BACKEND = "nccl"', 'BACKEND = "gloo"')})
    assert [f.code for f in project.check(select=["DSL104"]).findings] == []
