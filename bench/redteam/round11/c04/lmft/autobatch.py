"""Pick the micro-batch from the GPU's memory, in the spirit of YOLOv5's utils/autobatch.py."""
import torch

# bf16 activations per token of a GPT-2 small forward+backward, measured once with
# torch.cuda.max_memory_allocated (autocast, no activation checkpointing)
ACT_BYTES_PER_TOKEN = 240_000
# fp32 weights + grads + two AdamW moments
STATE_BYTES_PER_PARAM = 16


def fit_micro_batch(seq_len: int, n_params: int, device: int = 0, fraction: float = 0.85) -> int:
    props = torch.cuda.get_device_properties(device)
    reserved = torch.cuda.memory_reserved(device)
    budget = props.total_memory * fraction - reserved - n_params * STATE_BYTES_PER_PARAM
    per_sample = seq_len * ACT_BYTES_PER_TOKEN
    return max(1, int(budget // per_sample))
