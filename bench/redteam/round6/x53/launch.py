import os
import socket

import torch
import torch.multiprocessing as mp

from train import worker


def find_free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("localhost", 0))
    port = s.getsockname()[1]
    s.close()
    return port


if __name__ == "__main__":
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(find_free_port())
    n = torch.cuda.device_count()
    mp.spawn(worker, args=(n,), nprocs=n)
