import argparse
import json

import yaml
from transformers import GPT2Config, GPT2LMHeadModel

from molgen import dist_utils, hostenv
from molgen.engine import OffloadTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/smiles_gpt.yaml")
    parser.add_argument("--ds-config", default="configs/ds_offload.json")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    hostenv.configure_threads()
    dist_utils.init()
    with open(cfg["vocab"]) as f:
        vocab_size = len(json.load(f))
    model = GPT2LMHeadModel(GPT2Config(vocab_size=vocab_size, **cfg["model"]))
    OffloadTrainer(model, cfg, args.ds_config).fit()


if __name__ == "__main__":
    main()
