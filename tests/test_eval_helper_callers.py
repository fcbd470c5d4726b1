"""DSL401 for an evaluation helper decided by its callers in other modules, and a model put back in
training mode through the wrapper that holds it."""
from __future__ import annotations

import textwrap

HELPER = """
import torch


def count_flops(model, inputs):
    model.eval()
    out = model(*inputs)
    return out.numel()
"""

CALLER = """
import torch
from tools.flops import count_flops


{decorator}
def main():
    model = torch.nn.Linear(80, 512)
    print(count_flops(model, (torch.ones(8, 80),)))


if __name__ == "__main__":
    main()
"""


def _codes(project, files):
    project.write({path: textwrap.dedent(text) for path, text in files.items()})
    return [(f.path, f.code) for f in project.check(select=["DSL401"]).findings]


def test_every_caller_under_no_grad_drops_it(project):
    assert _codes(project, {"tools/__init__.py": "", "tools/flops.py": HELPER,
                            "profile.py": CALLER.format(decorator="@torch.no_grad()")}) == []


def test_a_caller_with_autograd_on_keeps_it(project):
    assert _codes(project, {"tools/__init__.py": "", "tools/flops.py": HELPER,
                            "profile.py": CALLER.format(decorator="")}) == [("tools/flops.py", "DSL401")]


def test_a_helper_nothing_calls_keeps_it(project):
    assert _codes(project, {"tools/__init__.py": "", "tools/flops.py": HELPER}) == [("tools/flops.py", "DSL401")]


def test_train_on_the_wrapper_puts_the_model_back_in_training_mode(project):
    train = """
    import os
    import torch
    import torch.distributed as dist


    def run(batch):
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl")
        model = torch.nn.Sequential(torch.nn.LazyLinear(8), torch.nn.Linear(8, 1)).cuda()
        model.eval()
        model(torch.rand(4, 16, device="cuda"))
        model = torch.nn.parallel.DistributedDataParallel(model)
        model.{method}()
        print(model(batch.cuda()))  # (a batch of data: a forward fed only torch.rand is a smoke test)
    """
    assert _codes(project, {"train.py": train.format(method="train")}) == []
    assert _codes(project, {"train.py": train.format(method="eval")}) == [("train.py", "DSL401")]
