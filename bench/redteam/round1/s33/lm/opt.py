from deepspeed.ops.adam import DeepSpeedCPUAdam


def make_cpu_adam(params, lr=3e-4):
    return DeepSpeedCPUAdam(params, lr=lr, betas=(0.9, 0.95), weight_decay=0.1, adamw_mode=True)
