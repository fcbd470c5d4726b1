import argparse

import yaml
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

from summ import data, dist_utils
from summ.engine import SummarizationTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/t5_base_cnndm.yaml")
    parser.add_argument("--ds-config", default="configs/ds_zero2.json")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = dist_utils.init()
    tokenizer = AutoTokenizer.from_pretrained(cfg["model_name"])
    model = AutoModelForSeq2SeqLM.from_pretrained(cfg["model_name"])
    train_loader, val_loader = data.build_loaders(cfg, tokenizer, local_rank)
    SummarizationTrainer(model, train_loader, val_loader, cfg, args.ds_config).fit()


if __name__ == "__main__":
    main()
