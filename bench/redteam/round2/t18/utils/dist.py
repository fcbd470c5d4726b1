import functools

import torch.distributed as dist


def main_process_only(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if dist.get_rank() == 0:
            return fn(*args, **kwargs)
        return None

    return wrapper
