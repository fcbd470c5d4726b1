"""DSL101 through a helper parameter's default: `def load_checkpoint(model, path, map_location="cuda:0")` in a
helper module, called by a multi-rank program without the argument, loads every rank's copy onto GPU 0."""
from __future__ import annotations

HELPER = '''import torch


def load_checkpoint(model, path, optimizer=None, map_location="cuda:0"):
    checkpoint = torch.load(path, map_location=map_location)
    model.load_state_dict(checkpoint["model"])
    return checkpoint.get("epoch", 0)
'''
TRAIN = '''import os

import torch
import torch.distributed as dist

from checkpoint import load_checkpoint


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(2, 2).cuda()
    CALL


if __name__ == "__main__":
    main()
'''


def rows(project, call="load_checkpoint(model, 'ckpt.pt')", launch="torchrun --nproc_per_node 8 train.py",
         helper=HELPER):
    project.write({"checkpoint.py": helper, "train.py": TRAIN.replace("CALL", call), "run.sh": launch + "\n"})
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL101"]).findings]


def test_a_gpu_default_every_multi_rank_caller_keeps_is_reported_at_the_helper(project):
    [(path, row, message)] = rows(project)
    assert (path, row) == ("checkpoint.py", 5)
    assert message.startswith("map_location='cuda:0' (the default of map_location) loads the checkpoint")


def test_a_caller_that_passes_the_device_or_one_process_is_clean(project):
    assert rows(project, call="load_checkpoint(model, 'ckpt.pt', map_location='cpu')") == []
    assert rows(project, call="load_checkpoint(model, 'ckpt.pt', None, f'cuda:{local_rank}')") == []
    assert rows(project, call="load_checkpoint(model, 'ckpt.pt', **{})") == []
    assert rows(project, launch="python train.py") == []


def test_rank_zero_alone_or_a_reassigned_parameter_is_clean(project):
    assert rows(project, call="if dist.get_rank() == 0:\n        load_checkpoint(model, 'ckpt.pt')") == []
    reassigned = HELPER.replace("    checkpoint = torch.load",
                                "    map_location = map_location or 'cpu'\n    checkpoint = torch.load")
    assert rows(project, helper=reassigned) == []


def test_a_device_default_used_by_to_is_reported_too(project):
    helper = "def to_device(batch, device='cuda:1'):\n    return batch.to(device)\n"
    project.write({"helpers.py": helper, "train.py": TRAIN.replace("from checkpoint import load_checkpoint",
                                                                   "from helpers import to_device")
                   .replace("CALL", "to_device(torch.zeros(2))"),
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    [finding] = project.check(select=["DSL101"]).findings
    assert (finding.path, finding.span.start.row) == ("helpers.py", 2)
