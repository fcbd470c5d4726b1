"""Framework calls that give the global rank are rank expressions like torch.distributed.get_rank():
mmengine's `get_rank()` (the rank in the world group) names a file per rank, and gates by rank."""
from __future__ import annotations

TRAIN = """import torch
import torch.distributed as dist
from mmengine.dist import get_rank

dist.init_process_group("nccl")
torch.cuda.set_device(int(__import__("os").environ["LOCAL_RANK"]))
queue = torch.load("queue" + str({rank}) + ".pth")
"""


def test_a_file_per_mmengine_rank_is_read_back_by_the_rank_that_wrote_it(project):
    project.write({"train.py": TRAIN.format(rank="get_rank()"), "run.sh": "torchrun --nproc_per_node=4 train.py\n"})
    assert "DSL102" not in project.codes()
    # the same load of one shared file name: every rank reads rank 0's GPU tensors
    project.write({"train.py": TRAIN.format(rank="0")})
    assert "DSL102" in project.codes()


def test_a_get_rank_of_an_unknown_library_names_no_file_per_rank(project):
    project.write({"train.py": TRAIN.format(rank="get_rank()").replace("from mmengine.dist", "from otherlib"),
                   "run.sh": "torchrun --nproc_per_node=4 train.py\n"})
    assert "DSL102" in project.codes()
