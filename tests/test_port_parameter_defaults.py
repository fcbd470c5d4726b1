"""DSL703 through a parameter default: `def init_distributed(port=40112)` writing MASTER_PORT is a
fixed port when no call in the project passes `port` (in its own module or another)."""
from __future__ import annotations

import pytest

HELPER = """import os
import torch.distributed as dist


def init_distributed(rank, world_size, port={default}):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
"""

CALLER = """import sys
import torch
from utils.dist import init_distributed


def main(rank, world_size, args):
    {call}
"""


@pytest.mark.parametrize("call, flagged", [
    ("init_distributed(rank, world_size)", True),
    ("init_distributed(rank=rank, world_size=world_size)", True),
    ("init_distributed(rank, world_size, args.port)", False),
    ("init_distributed(rank, world_size, port=args.port)", False),
    ("init_distributed(*sys.argv)", False),
    ("init_distributed(rank, world_size, **vars(args))", False),
    ("callbacks = [init_distributed]", False),  # handed on: its callers are unseen
])
def test_a_default_port_no_caller_overrides_is_fixed(project, call, flagged):
    project.write({"utils/__init__.py": "", "utils/dist.py": HELPER.format(default="40112"),
                   "train.py": CALLER.format(call=call)})
    assert (project.codes(select=["DSL703"]) == ["DSL703"]) is flagged


def test_a_function_nothing_calls_proves_no_port(project):
    project.write({"utils/__init__.py": "", "utils/dist.py": HELPER.format(default="40112")})
    assert project.codes(select=["DSL703"]) == []


def test_a_call_in_the_same_module_counts(project):
    text = HELPER.format(default='"29500"') + "\n\ndef run():\n    init_distributed(0, 1)\n"
    project.write({"dist.py": text})
    assert project.codes(select=["DSL703"]) == ["DSL703"]
    project.write({"dist.py": text + "\n\ndef other(p):\n    init_distributed(0, 1, p)\n"})
    assert project.codes(select=["DSL703"]) == []


def test_a_default_that_is_not_a_port_constant_says_nothing(project):
    project.write({"utils/__init__.py": "", "utils/dist.py": HELPER.format(default="None"),
                   "train.py": CALLER.format(call="init_distributed(rank, world_size)")})
    assert project.codes(select=["DSL703"]) == []
