"""Process-environment helpers for the self-spawning launcher."""
import os
import socket

# Each worker sees exactly one GPU (see pin_visible_gpu), so its device is always the first one.
DEVICE = "cuda:0"


def find_free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def pin_visible_gpu(index: int, gpus: list) -> None:
    """Make physical GPU `gpus[index]` the only one this process can see.

    Must run before anything in the process initialises CUDA.
    """
    os.environ["CUDA_VISIBLE_DEVICES"] = gpus[index]
