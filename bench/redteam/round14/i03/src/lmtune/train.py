import argparse

import torch
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from lmtune import data, dist_utils
from lmtune.engine import LMTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/gpt2-medium.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = dist_utils.init()
    tokenizer = AutoTokenizer.from_pretrained(cfg["model_name"])
    model = AutoModelForCausalLM.from_pretrained(cfg["model_name"]).cuda()
    ddp_model = DDP(model, device_ids=[local_rank])

    train_loader = data.build_train_loader(tokenizer, cfg)
    optimizer = torch.optim.AdamW(ddp_model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    total_steps = cfg["epochs"] * len(train_loader)
    scheduler = get_cosine_schedule_with_warmup(optimizer, cfg["warmup_steps"], total_steps)

    LMTrainer(ddp_model, optimizer, scheduler, train_loader, cfg).train()


if __name__ == "__main__":
    main()
