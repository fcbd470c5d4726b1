"""DSL101 where the fixed device never runs in a multi-rank process: a function nothing calls, the other branch of a world-size test."""
from __future__ import annotations

import textwrap

TRAIN = """
import os
import torch
import torch.distributed as dist


def debug_lengths(lengths):
    t = torch.tensor(lengths, device="cuda:0")
    print(t)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    x = torch.randn(4, 8, device="cuda")
    {call}


if __name__ == "__main__":
    main()
"""


def _codes(project, files):
    project.write({path: textwrap.dedent(text) for path, text in files.items()})
    return [f.code for f in project.check(select=["DSL101"]).findings]


def test_a_helper_nothing_calls_is_not_reported(project):
    assert _codes(project, {"train.py": TRAIN.format(call="# debug_lengths(x.shape)"),
                            "run.sh": "torchrun --nproc_per_node 8 train.py\n"}) == []


def test_a_helper_the_script_calls_is_reported(project):
    assert _codes(project, {"train.py": TRAIN.format(call="debug_lengths(x.shape)"),
                            "run.sh": "torchrun --nproc_per_node 8 train.py\n"}) == ["DSL101"]


def test_a_helper_another_module_calls_is_reported(project):
    assert _codes(project, {"train.py": TRAIN.format(call="pass"),
                            "probe.py": "import torch\nfrom train import debug_lengths\n\ndebug_lengths(torch.tensor([1, 2]))\n",
                            "run.sh": "torchrun --nproc_per_node 8 train.py\n"}) == ["DSL101"]


SIZE_GATED = """
import torch
import ext

ext.setup()
if {test}:
    device = torch.device("cuda", ext.my_local_rank)
else:
    device = torch.device("cuda", 0)
model = torch.nn.Linear(8, 8).to(device)
model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[ext.my_local_rank])
"""

EXT = """
import os
import torch
import torch.distributed as dist

my_size, my_local_rank = -1, 0


def setup():
    global my_size, my_local_rank
    my_local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(my_local_rank)
    dist.init_process_group("nccl")
    my_size = dist.get_world_size()
"""


def test_the_other_branch_of_a_size_compared_with_one_is_the_one_process_path(project):
    assert _codes(project, {"train.py": SIZE_GATED.format(test="ext.my_size > 1"), "ext.py": EXT,
                            "run.sh": "torchrun --nproc_per_node 8 train.py\n"}) == []


def test_a_gate_on_something_else_keeps_the_finding(project):
    assert _codes(project, {"train.py": SIZE_GATED.format(test="ext.use_amp"), "ext.py": EXT + "use_amp = True\n",
                            "run.sh": "torchrun --nproc_per_node 8 train.py\n"}) == ["DSL101"]
