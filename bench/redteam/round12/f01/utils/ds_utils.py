# Adapted from DeepSpeed-Chat (applications/DeepSpeed-Chat/dschat/utils/ds_utils.py).
GLOBAL_BATCH_SIZE = 32
MICRO_BATCH_SIZE = 4


def get_train_ds_config(offload,
                        dtype,
                        stage=2,
                        enable_tensorboard=False,
                        tb_path="",
                        tb_name=""):
    device = "cpu" if offload else "none"
    if dtype == "fp16":
        data_type = "fp16"
        dtype_config = {"enabled": True, "loss_scale_window": 100}
    else:
        data_type = "bf16"
        dtype_config = {"enabled": True}
    zero_opt_dict = {
        "stage": stage,
        "overlap_comm": True,
        "offload_param": {
            "device": device
        },
        "offload_optimizer": {
            "device": device
        },
        "stage3_param_persistence_threshold": 1e4,
        "stage3_max_live_parameters": 3e7,
        "stage3_prefetch_bucket_size": 3e7,
        "memory_efficient_linear": False,
    }
    return {
        "train_batch_size": GLOBAL_BATCH_SIZE,
        "train_micro_batch_size_per_gpu": MICRO_BATCH_SIZE,
        "steps_per_print": 10,
        "zero_optimization": zero_opt_dict,
        data_type: dtype_config,
        "gradient_clipping": 1.0,
        "prescale_gradients": False,
        "wall_clock_breakdown": False,
        "tensorboard": {
            "enabled": enable_tensorboard,
            "output_path": f"{tb_path}/ds_tensorboard_logs/",
            "job_name": f"{tb_name}_tensorboard",
        },
    }


def get_optimizer_grouped_parameters(model, weight_decay, no_decay_name_list=("bias", "norm.weight")):
    return [
        {
            "params": [p for n, p in model.named_parameters()
                       if not any(nd in n for nd in no_decay_name_list) and p.requires_grad],
            "weight_decay": weight_decay,
        },
        {
            "params": [p for n, p in model.named_parameters()
                       if any(nd in n for nd in no_decay_name_list) and p.requires_grad],
            "weight_decay": 0.0,
        },
    ]
