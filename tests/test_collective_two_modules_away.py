"""DSL501 when the collective is two modules away from the rank gate: `if is_main_process(): evaluate(...)`
where engine.evaluate calls misc.all_reduce_mean outside any `if`, which all-reduces (MAE's layout)."""
from __future__ import annotations

MISC = """import torch
import torch.distributed as dist


def all_reduce_mean(x):
    if dist.get_world_size() > 1:
        t = torch.tensor(x).cuda()
        dist.all_reduce(t)
        return t.item() / dist.get_world_size()
    return x
"""
ENGINE = """from util import misc


def evaluate(loader, model):
    total = 0.0
    for batch in loader:
        total += float(model(batch))
    BODY
    return acc
"""
MAIN = """import torch.distributed as dist

from engine import evaluate

dist.init_process_group("nccl")
if dist.get_rank() == 0:
    evaluate([1, 2], float)
"""


def rows(project, body="acc = misc.all_reduce_mean(total)"):
    project.write({"util/__init__.py": "", "util/misc.py": MISC, "engine.py": ENGINE.replace("BODY", body),
                   "main.py": MAIN, "run.sh": "torchrun --nproc_per_node 4 main.py\n"})
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL501"]).findings]


def test_a_gated_call_whose_callee_calls_an_all_reducing_helper_unconditionally_hangs(project):
    [(path, row, message)] = rows(project)
    assert (path, row) == ("main.py", 7)
    assert message.startswith("evaluate() reaches dist.all_reduce (util/misc.py:8)")


def test_a_helper_called_under_a_test_of_the_callee_or_not_at_all_is_clean(project):
    assert rows(project, body="acc = misc.all_reduce_mean(total) if total else 0.0\n    "
                              "if total > 1:\n        acc = misc.all_reduce_mean(total)") == []
    assert rows(project, body="acc = total") == []
    # (a helper handed the function's own parameter reaches what the caller's argument decides)
    assert rows(project, body="acc = misc.all_reduce_mean(loader)") == []
