def build(args):
    cfg = {
        "train_micro_batch_size_per_gpu": args.micro_batch,
        "gradient_accumulation_step": args.grad_accum,
        "gradient_clipping": 1.0,
        "fp16": {"enabled": True, "loss_scale_window": 500},
        "optimizer": {"type": "Adam", "params": {"lr": args.lr}},
        "zero_optimization": {"stage": 1},
    }
    return cfg
