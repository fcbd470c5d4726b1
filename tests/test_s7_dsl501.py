"""DSL501 of the seventh session: a rank gate through a parameter that the callers in other modules
pass as a constant (`log(msg, rank0_only=True)`)."""
from __future__ import annotations

UTILS = ("import torch.distributed as dist\n\n\n"
         "def log(msg, rank0_only=False):\n"
         "    rank = dist.get_rank()\n"
         "    if rank0_only:\n"
         "        if rank == 0:\n"
         "            print(msg)\n"
         "        return\n"
         "    for i in range(dist.get_world_size()):\n"
         "        if i == rank:\n"
         "            print(msg)\n"
         "        dist.barrier()\n")
CALLER = ("import torch.distributed as dist\n\nfrom utils import log\n\n"
          "dist.init_process_group('nccl')\nCALLS\n")


def rows(project, files):
    project.write(files)
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL501"]).findings if f.code == "DSL501"]


def test_a_rank0_only_parameter_every_other_module_passes_as_a_constant_is_no_gate(project):
    for calls in ("log('out', rank0_only=True)\nlog('diff')", "log('out', True)", "log('diff', rank0_only=False)"):
        assert rows(project, {"utils.py": UTILS, "run.py": CALLER.replace("CALLS", calls)}) == [], calls
    # several callers, one of them a module that mentions no framework (imported by one that does)
    assert rows(project, {"utils.py": UTILS, "run.py": CALLER.replace("CALLS", "log('a', rank0_only=True)\nimport plain"),
                          "plain.py": "from utils import log\n\n\ndef show():\n    log('b', False)\n"}) == []


def test_a_rank0_only_parameter_a_caller_passes_a_rank_test_is_still_a_gate(project):
    for calls in ("log('out', rank0_only=dist.get_rank() == 0)", "log('out', dist.get_rank() == 0)",
                  "log('a')\nlog('out', **{'rank0_only': True})"):
        assert rows(project, {"utils.py": UTILS, "run.py": CALLER.replace("CALLS", calls)}) == [("utils.py", 13)], calls
    # a module that hands the function on (the calls are unseen), and no caller at all
    assert rows(project, {"utils.py": UTILS, "run.py": CALLER.replace("CALLS", "hooks = [log]")}) == [("utils.py", 13)]
    assert rows(project, {"utils.py": UTILS}) == [("utils.py", 13)]
    assert rows(project, {"utils.py": UTILS, "run.py": CALLER.replace("CALLS", "log('a', rank0_only=True)\nimport plain"),
                          "plain.py": "from utils import log\n\n\ndef show(flag):\n    log('b', flag)\n"}) == \
        [("utils.py", 13)]


def test_another_gate_on_the_path_still_reports_it(project):
    gated = UTILS.replace("    for i in", "    if rank != 0:\n        return\n    for i in")
    assert rows(project, {"utils.py": gated, "run.py": CALLER.replace("CALLS", "log('out', rank0_only=True)")}) == \
        [("utils.py", 15)]


def test_a_caller_in_the_module_itself_decides_as_before(project):
    here = UTILS + "\n\nlog('x', rank0_only=dist.get_rank() == 0)\n"
    assert rows(project, {"utils.py": here, "run.py": CALLER.replace("CALLS", "log('out', rank0_only=True)")}) == \
        [("utils.py", 13)]
