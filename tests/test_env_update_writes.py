"""`os.environ.update(...)` writes the environment as `os.environ[k] = v` does (DSL703's fixed port)."""
from __future__ import annotations

import pytest

SCRIPT = """import os
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)


if __name__ == "__main__":
    {write}
    mp.spawn(worker, args=(2,), nprocs=2)
"""


@pytest.mark.parametrize("write, flagged", [
    ('os.environ.update(MASTER_ADDR="localhost", MASTER_PORT="29501")', True),
    ('os.environ.update({"MASTER_PORT": "29501"})', True),
    ('os.environ.update(MASTER_ADDR="localhost")', False),
    ('if "MASTER_PORT" not in os.environ:\n        os.environ.update(MASTER_PORT="29501")', False),
])
def test_environ_update_sets_the_port_like_an_item_assignment(project, write, flagged):
    project.write({"train.py": SCRIPT.format(write=write)})
    assert (project.codes(select=["DSL703"]) == ["DSL703"]) is flagged
