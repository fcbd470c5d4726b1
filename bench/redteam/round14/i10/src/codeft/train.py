import argparse

import yaml
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, AutoTokenizer

from codeft import data
from codeft.engine import CodeTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/starcoder2_3b.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(cfg["model_name"])
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(cfg["model_name"])
    model.gradient_checkpointing_enable()
    train_loader, val_loader = data.build_loaders(cfg, tokenizer, accelerator)
    CodeTrainer(accelerator, model, tokenizer, train_loader, val_loader, cfg).fit()


if __name__ == "__main__":
    main()
