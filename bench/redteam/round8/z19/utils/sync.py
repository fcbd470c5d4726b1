import json
import os

import torch.distributed as dist


def _write_manifest(path, shards):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"shards": shards}, f)
    dist.barrier()


def _wait_for_manifest():
    dist.barrier()


def publish_manifest(path, shards):
    """Rank 0 writes the shard list; every rank returns once it exists."""
    if dist.get_rank() == 0:
        _write_manifest(path, shards)
    else:
        _wait_for_manifest()
    with open(path) as f:
        return json.load(f)["shards"]
