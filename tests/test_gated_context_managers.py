"""DSL501 on a project class used under a rank gate whose constructor, or (in a `with`) whose
__enter__/__exit__, reaches a collective."""
from __future__ import annotations

TIMER = ("import torch.distributed as dist\n\n\nclass Timer:\n    def __init__(self, name):\n        INIT\n\n"
         "    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n        EXIT\n        return False\n")
TRAIN = ("import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom utils.timing import Timer\n\n"
         "dist.init_process_group('nccl')\nrank = dist.get_rank()\ntorch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
         "if rank == 0:\n    USE\n")


def findings(project, init="self.name = name", exit_="dist.barrier()", use="with Timer('eval'):\n        pass"):
    project.write({"utils/__init__.py": "", "utils/timing.py": TIMER.replace("INIT", init).replace("EXIT", exit_),
                   "train.py": TRAIN.replace("USE", use), "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    return [(f.code, f.span.start.row, f.message) for f in project.check(select=["DSL501"]).findings]


def test_a_context_manager_whose_exit_reaches_a_collective_under_a_rank_gate(project):
    ((code, row, message),) = findings(project)
    assert (code, row) == ("DSL501", 12) and message.startswith("Timer.__exit__() reaches dist.barrier")


def test_a_constructor_that_reaches_a_collective_and_a_class_that_reaches_none(project):
    ((_, _, message),) = findings(project, init="dist.barrier()", exit_="pass", use="t = Timer('eval')")
    assert message.startswith("Timer() reaches dist.barrier")
    assert findings(project, exit_="pass") == []
    # (not entered: its __exit__ never runs)
    assert findings(project, use="t = Timer('eval')") == []
