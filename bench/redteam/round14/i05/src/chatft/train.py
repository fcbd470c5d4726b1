import argparse

import torch
import yaml
from transformers import AutoModelForCausalLM, AutoTokenizer

from chatft import data, dist_utils
from chatft.engine import SFTTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/sft_qwen.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    dist_utils.init_distributed()
    tokenizer = AutoTokenizer.from_pretrained(cfg["model_name"])
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(cfg["model_name"], torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    loader = data.build_loader(cfg, tokenizer)
    SFTTrainer(model, loader, cfg).train()


if __name__ == "__main__":
    main()
