import contextlib

import torch


@contextlib.contextmanager
def frozen():
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        yield
    finally:
        torch.set_grad_enabled(previous)
