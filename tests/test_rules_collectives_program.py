"""Collectives reached through a function of another module: the gate is in the caller."""
from __future__ import annotations

DIST_UTIL = '''import io

import torch
from mpi4py import MPI


def load_state_dict(path, **kwargs):
    """Read on rank 0, broadcast to the others."""
    if MPI.COMM_WORLD.Get_rank() == 0:
        with open(path, "rb") as f:
            data = f.read()
        MPI.COMM_WORLD.bcast(data)
    else:
        data = MPI.COMM_WORLD.bcast(None)
    return torch.load(io.BytesIO(data), **kwargs)


def log(message):
    print(message)
'''

TRAIN = '''import torch
import torch.distributed as dist

from utils import dist_util


def resume(model, path):
    if dist.get_rank() == 0:
        dist_util.log(f"loading {path}")
        model.load_state_dict(dist_util.load_state_dict(path, map_location="cpu"))
'''


def test_a_helper_that_broadcasts_on_every_rank_called_on_rank_zero_only_hangs(project):
    project.write({"train.py": TRAIN, "utils/__init__.py": "", "utils/dist_util.py": DIST_UTIL})
    findings = [f for f in project.check().findings if f.code == "DSL501"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 10)]
    assert "utils/dist_util.py:12" in findings[0].message and "MPI" in findings[0].message


def test_the_same_helper_called_on_every_rank_is_fine(project):
    train = TRAIN.replace("    if dist.get_rank() == 0:\n        dist_util.log(f\"loading {path}\")\n        model",
                          "    if True:\n        model")
    project.write({"train.py": train, "utils/__init__.py": "", "utils/dist_util.py": DIST_UTIL})
    assert "DSL501" not in project.codes()


def test_a_helper_whose_collective_is_gated_inside_is_not_blamed_on_the_caller(project):
    helper = DIST_UTIL.replace("    else:\n        data = MPI.COMM_WORLD.bcast(None)\n", "    else:\n        data = b''\n")
    project.write({"train.py": TRAIN, "utils/__init__.py": "", "utils/dist_util.py": helper})
    assert [f.path for f in project.check().findings if f.code == "DSL501"] == ["utils/dist_util.py"]
