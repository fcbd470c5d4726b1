"""DSL101 (and DSL401 below) leaves a fixed device alone in the one-process arm of an `if` whose other arm places on
the rank's GPU; a module-level function's parameter is a rank value unless its own calls pass a
constant (`model.train()` is no call of a module-level `train`)."""
from __future__ import annotations

LOOP = """import torch
import torch.distributed as dist


def train(model, loader, cfg, local_rank=None):
    model.train()
    for batch in loader:
        if cfg.sharded:
            batch = batch.to(local_rank)
        else:
            batch = batch.to("cuda:0")
        model(batch).sum().backward()


def main(cfg):
    dist.init_process_group("nccl")
    train(torch.nn.Linear(2, 2), [], cfg, int(__import__("os").environ["LOCAL_RANK"]))
"""


def test_the_other_arm_placing_by_rank_makes_this_arm_one_process(project):
    project.write({"loop.py": LOOP})
    assert project.codes(select=["DSL101"]) == []


def test_without_the_rank_arm_the_fixed_device_is_flagged(project):
    project.write({"loop.py": LOOP.replace("batch.to(local_rank)", "batch.to('cuda:1')")})
    assert "DSL101" in project.codes(select=["DSL101"])


PPO = """import torch


class PPO:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def forward_all(self, batches):
        self.model.eval()
        return [self.model(x) for x in batches]

    def update(self, outs):
        sum(o.sum() for o in outs).backward()
        self.optimizer.step()

    def step(self, batches):
        with torch.no_grad():
            old = self.forward_all(batches)
        new = self.forward_all(batches)
        {use}
        return old
"""


def test_an_eval_mode_forward_whose_result_a_method_trains_on_is_no_eval_helper(project):
    """(DSL401) PPO's batched forward in eval mode (dropout off) keeps its graph for the update."""
    project.write({"ppo.py": PPO.format(use="self.update(new)")})
    assert project.codes(select=["DSL401"]) == []
    project.write({"ppo.py": PPO.format(use="print(len(new))")})
    assert project.codes(select=["DSL401"]) == ["DSL401"]


def test_a_result_unpacked_from_the_forward_counts_too(project):
    text = PPO.format(use="self.update(new)").replace("new = self.forward_all(batches)", "new, _ = self.forward_all(batches)")
    project.write({"ppo.py": text})
    assert project.codes(select=["DSL401"]) == []
