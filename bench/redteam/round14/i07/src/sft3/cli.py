import argparse

import deepspeed


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="ZeRO-3 supervised fine-tuning")
    parser.add_argument("--model_name_or_path", default="meta-llama/Llama-2-7b-hf")
    parser.add_argument("--train_file", default="data/train.jsonl")
    parser.add_argument("--output_dir", default="out/sft3")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--max_length", type=int, default=1024)
    return deepspeed.add_config_arguments(parser)
