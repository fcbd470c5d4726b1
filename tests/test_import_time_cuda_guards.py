"""Import-time CUDA behind a guard counts only when a GPU alone makes the guard pass (DSL105's fact)."""
from __future__ import annotations

import ast

import pytest

from dslint.facts.module_summary import summarise_module
from dslint.facts.script import build_script_facts


def _touch(source: str):
    return summarise_module(build_script_facts("pkg/ops.py", source, ast.parse(source))).import_time_cuda


@pytest.mark.parametrize("guard", [
    "torch.cuda.is_available()",
    "torch.cuda.is_available() and torch.cuda.is_available()",
])
def test_a_guard_a_gpu_passes_still_counts(guard):
    assert _touch(f"import torch\nif {guard}:\n    WARM = torch.zeros(1).cuda()\n") == (3, ".cuda()")


def test_the_else_of_a_negated_availability_test_counts():
    source = "import torch\nif not torch.cuda.is_available():\n    DEV = 'cpu'\nelse:\n    WARM = torch.zeros(1).cuda()\n"
    assert _touch(source) == (5, ".cuda()")


@pytest.mark.parametrize("guard", [
    "'PYTEST_CURRENT_TEST' in os.environ and torch.cuda.is_available()",
    "os.environ.get('WARMUP') == '1' and torch.cuda.is_available()",
    "torch.cuda.is_available() or FORCE",
    "not torch.cuda.is_available()",
])
def test_a_guard_with_another_condition_is_unknown(guard):
    assert _touch(f"import os\nimport torch\nFORCE = False\nif {guard}:\n    WARM = torch.zeros(1).cuda()\n") is None
