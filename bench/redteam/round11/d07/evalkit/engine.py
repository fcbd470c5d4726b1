"""DeepSpeed-Inference wrapper shared by our offline evaluation scripts."""
import deepspeed
import torch


def build_engine(model, tp_size: int, dtype=torch.float16):
    """Shard `model` over `tp_size` GPUs and swap in DeepSpeed's fused inference kernels."""
    engine = deepspeed.init_inference(
        model,
        tensor_parallel={"tp_size": tp_size},
        dtype=dtype,
        replace_with_kernel_inject=True,
    )
    return engine.module
