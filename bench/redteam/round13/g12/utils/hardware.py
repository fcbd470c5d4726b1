"""GPU queries that are safe before Lightning forks its workers (none of them initialises CUDA)."""
import os

import pynvml
import torch

# make torch.cuda.is_available() ask NVML instead of creating a CUDA context in the parent process
os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")


def free_memory_gib(index: int) -> float:
    pynvml.nvmlInit()
    try:
        info = pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(index))
        return info.free / 2**30
    finally:
        pynvml.nvmlShutdown()


def pick_batch_size(devices: int, gib_per_sample: float, ceiling: int = 64) -> int:
    """Largest power of two that fits in the smallest free memory among the GPUs we will use."""
    if not torch.cuda.is_available():
        return 4
    usable = min(devices, torch.cuda.device_count())
    free = min(free_memory_gib(i) for i in range(usable))
    batch = 1
    while batch * 2 <= ceiling and batch * 2 * gib_per_sample < 0.8 * free:
        batch *= 2
    return batch
