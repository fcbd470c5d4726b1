"""Command-line options of the pretraining entry point."""
import argparse

import deepspeed


def get_args(argv=None):
    parser = argparse.ArgumentParser(description="GPT pretraining with DeepSpeed")

    data = parser.add_argument_group("data")
    data.add_argument("--data_path", type=str, required=True, help="uint16 token file from prepare.py")
    data.add_argument("--seq_len", type=int, default=1024)
    data.add_argument("--num_workers", type=int, default=2)

    model = parser.add_argument_group("model")
    model.add_argument("--n_layer", type=int, default=24)
    model.add_argument("--n_head", type=int, default=16)
    model.add_argument("--n_embd", type=int, default=1024)
    model.add_argument("--dropout", type=float, default=0.0)

    run = parser.add_argument_group("run")
    run.add_argument("--epochs", type=int, default=1)
    run.add_argument("--save_dir", type=str, default="checkpoints")
    run.add_argument("--save_interval", type=int, default=2000)
    run.add_argument("--seed", type=int, default=1234)

    # --deepspeed / --deepspeed_config
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args(argv)
