"""DSL302 reads a DistributedSampler's `shuffle=` through the bindings: a sampler that may not
shuffle (`shuffle=is_train`, a parameter) has no epoch to set, so it is not flagged."""
from __future__ import annotations

import pytest

LOOP = """import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
SHUFFLE = {constant}


def train(ds, is_train):
    dist.init_process_group("nccl")
    sampler = DistributedSampler({arguments})
    loader = DataLoader(ds, sampler=sampler)
    for epoch in range(10):
        for batch in loader:
            pass
"""


@pytest.mark.parametrize("arguments, constant, flagged", [
    ("ds", "True", True),
    ("ds, shuffle=SHUFFLE", "True", True),
    ("ds, shuffle=SHUFFLE", "False", False),
    ("ds, None, None, SHUFFLE", "False", False),
    ("ds, shuffle=is_train", "True", False),
    ("ds, shuffle=bool(is_train)", "True", False),
    ("ds, None, None, True", "False", True),
])
def test_a_sampler_that_may_not_shuffle_has_no_epoch_to_set(project, arguments, constant, flagged):
    project.write({"train.py": LOOP.format(arguments=arguments, constant=constant)})
    assert (project.codes(select=["DSL302"]) == ["DSL302"]) is flagged
