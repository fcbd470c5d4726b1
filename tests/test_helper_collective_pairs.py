"""A collective reached through a helper of the module is matched by the other branch's call, as a
direct collective is: `if rank == src: broadcast(size) else: broadcast(empty)` makes every rank call it."""
from __future__ import annotations

SCRIPT = """import torch
import torch.distributed as dist


def broadcast(tensor, src=0):
    if dist.is_initialized():
        dist.broadcast(tensor, src)
    return tensor


def share(value, src=0):
    if dist.get_rank() == src:
        out = broadcast(torch.tensor([value]), src=src)
    else:
        {other}
    return out


dist.init_process_group("nccl")
share(3)
"""


def test_a_helper_called_in_both_branches_is_reached_by_every_rank(project):
    project.write({"train.py": SCRIPT.format(other="out = broadcast(torch.zeros(1), src=src)"),
                   "run.sh": "torchrun --nproc_per_node=4 train.py\n"})
    assert "DSL501" not in project.codes()


def test_a_direct_collective_in_the_other_branch_matches_the_helper_too(project):
    project.write({"train.py": SCRIPT.format(other="out = torch.zeros(1); dist.broadcast(out, src)"),
                   "run.sh": "torchrun --nproc_per_node=4 train.py\n"})
    assert "DSL501" not in project.codes()


def test_a_helper_called_in_one_branch_only_still_hangs(project):
    project.write({"train.py": SCRIPT.format(other="out = torch.zeros(1)"),
                   "run.sh": "torchrun --nproc_per_node=4 train.py\n"})
    assert "DSL501" in project.codes()
