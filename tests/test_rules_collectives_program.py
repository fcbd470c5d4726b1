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


# A ZeRO-3 gather that a helper makes only under ZeRO-3, called on rank 0 only where ZeRO-3 is off.
DS_UTILS = '''def get_state_dict(engine):
    if engine.zero_optimization_partition_weights():
        return engine._zero3_consolidated_16bit_state_dict()
    return engine.module.state_dict()
'''

SAVER = '''import torch
import torch.distributed as dist

from ds_utils import get_state_dict


def save(engine, path, zero3):
    if ZERO3_TEST:
        state = get_state_dict(engine)
    else:
        if dist.get_rank() == 0:
            state = get_state_dict(engine)
    if dist.get_rank() == 0:
        torch.save(state, path)
'''


def _zero3_rows(project, test="zero3", helper=DS_UTILS):
    project.write({"saver.py": SAVER.replace("ZERO3_TEST", test), "ds_utils.py": helper})
    return [(f.code, f.path, f.span.start.row) for f in project.check().findings if f.code in ("DSL501", "DSL502")]


def test_a_zero3_only_gather_called_on_rank_zero_where_zero3_is_off_is_no_hang(project):
    assert _zero3_rows(project) == []
    assert _zero3_rows(project, "engine.zero_optimization_stage() == 3") == []


def test_the_rank_zero_call_where_zero3_may_be_on_still_hangs(project):
    assert _zero3_rows(project, "path.endswith('.bin')") == [("DSL502", "saver.py", 12)]


def test_a_helper_that_gathers_whatever_the_stage_still_hangs_on_rank_zero(project):
    always = "def get_state_dict(engine):\n    return engine._zero3_consolidated_16bit_state_dict()\n"
    assert _zero3_rows(project, helper=always) == [("DSL502", "saver.py", 12)]


def test_the_zero3_gather_in_the_same_module_follows_the_same_condition(project):
    project.write({"saver.py": SAVER.replace("ZERO3_TEST", "zero3").replace("from ds_utils import get_state_dict\n",
                                                                          DS_UTILS)})
    assert [f.code for f in project.check().findings if f.code in ("DSL501", "DSL502")] == []
