import os
import socket

import torch.distributed as dist


def find_free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def set_rendezvous():
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(find_free_port())


def setup(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
