"""DSL102 and files of numpy arrays: torch.from_numpy takes only numpy arrays, so a load whose every
read goes through it restores no tensor onto any GPU."""
from __future__ import annotations

import pytest

HEAD = """import os
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
"""
RUN = "torchrun --nproc_per_node=2 train.py\n"


@pytest.mark.parametrize("body", [
    'bins = torch.from_numpy(torch.load("f0_bins.th")[32])\n',
    'table = torch.load("f0_bins.th")\nlow = torch.from_numpy(table[32])\nhigh = torch.from_numpy(table[64])\n',
])
def test_a_load_read_only_through_from_numpy_is_not_flagged(project, body):
    project.write({"train.py": HEAD + body, "run.sh": RUN})
    assert "DSL102" not in project.codes()


@pytest.mark.parametrize("body", [
    # one item is read as numpy, the other is a state dict: its tensors may have been saved from a GPU
    'ckpt = torch.load("ckpt.pt")\nbins = torch.from_numpy(ckpt["bins"])\nweights = ckpt["model"]\n',
    'state = torch.load("ckpt.pt")\n',
])
def test_a_load_with_any_other_read_still_is(project, body):
    project.write({"train.py": HEAD + body, "run.sh": RUN})
    assert "DSL102" in project.codes()
