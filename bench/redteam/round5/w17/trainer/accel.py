from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin


def build_accelerator(grad_accum=4):
    plugin = DeepSpeedPlugin(zero_stage=2, offload_optimizer_device="cpu", gradient_accumulation_steps=grad_accum)
    return Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
