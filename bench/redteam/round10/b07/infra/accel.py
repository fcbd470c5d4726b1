"""Accelerator factory shared by our training scripts (accelerate + DeepSpeed)."""
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin

# The 13B weights do not fit next to the activations at seq 4096: keep the parameters on the host.
PLUGIN_KW = dict(offload_param_device="cpu", zero3_init_flag=False, gradient_clipping=1.0)


def build_accelerator(grad_accum: int = 4) -> Accelerator:
    plugin = DeepSpeedPlugin(gradient_accumulation_steps=grad_accum, **PLUGIN_KW)
    return Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
