import torch.distributed as dist


def global_barrier():
    """Wait for every rank; a no-op when the job runs as one process."""
    if dist.is_available() and dist.is_initialized():
        dist.barrier()
