"""DSL305: a DDP wrapper handed only to a no-grad helper of its module is never trained."""
from __future__ import annotations

SCRIPT = """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


{decorator}
def score(net, batches):
    total = 0.0
    for x in batches:
        total += net(x.cuda()).sum().item()
    return total


def main():
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    base = torch.nn.Linear(16, 4)
    base.load_state_dict(torch.load("w.pt", map_location="cpu"))
    wrapped = DistributedDataParallel(base.cuda().eval(), device_ids=[rank])
    print(score(wrapped, [torch.randn(2, 16)]))


if __name__ == "__main__":
    main()
"""


def _dsl305(project, decorator):
    project.write({"score.py": SCRIPT.format(decorator=decorator), "run.sh": "torchrun --nproc_per_node 4 score.py\n"})
    return [f.code for f in project.check(select=["DSL305"]).findings]


def test_handed_only_to_an_inference_mode_helper_it_is_reported(project):
    assert _dsl305(project, "@torch.inference_mode()") == ["DSL305"]


def test_handed_to_a_helper_with_autograd_on_it_is_not(project):
    assert _dsl305(project, "") == []
