"""DeepSpeed config for the GPT-2 pretraining runs, built from the command line."""


def get_ds_config(args):
    # Global batch of 256 sequences: the defaults below were tuned on the 4-GPU dev box (16 x 4 x 4).
    return {
        "train_batch_size": args.global_batch_size,
        "train_micro_batch_size_per_gpu": args.micro_batch_size,
        "gradient_accumulation_steps": args.grad_accum_steps,
        "steps_per_print": args.log_interval,
        "gradient_clipping": args.clip_grad,
        "optimizer": {
            "type": "AdamW",
            "params": {"lr": args.lr, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": args.weight_decay},
        },
        "scheduler": {
            "type": "WarmupLR",
            "params": {"warmup_min_lr": 0.0, "warmup_max_lr": args.lr, "warmup_num_steps": args.warmup_steps},
        },
        "bf16": {"enabled": not args.no_bf16},
        "zero_optimization": {
            "stage": args.zero_stage,
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": 5e8,
            "allgather_bucket_size": 5e8,
        },
        "wall_clock_breakdown": False,
    }
