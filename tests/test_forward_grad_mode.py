"""DSL401 and a module's `forward`: it runs in its caller's grad mode, so `self.net.eval()` and a
forward inside it are not an evaluation loop with autograd on; the loop that calls it is."""
from __future__ import annotations

VOCODER = """import torch
from torch import nn


class Vocoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(80, 256)

    def {name}(self, x):
        net = self.net.eval()
        return net(x).detach()
"""
RUN = "torchrun --nproc_per_node=2 vocoder.py\n"


def test_a_forward_that_puts_a_submodule_in_eval_mode_is_not_flagged(project):
    project.write({"vocoder.py": VOCODER.format(name="forward"), "run.sh": RUN})
    assert "DSL401" not in project.codes()


def test_the_same_code_in_an_evaluation_method_still_is(project):
    project.write({"vocoder.py": VOCODER.format(name="evaluate"), "run.sh": RUN})
    assert "DSL401" in project.codes()
