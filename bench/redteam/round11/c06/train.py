import argparse

import torch
import yaml
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

from sft.data import PadCollator, SupportSFT
from sft.ds_presets import deepspeed_config


def load_config() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    path = parser.parse_args().config
    with open(path) as f:
        return argparse.Namespace(**yaml.safe_load(f))


def main():
    cfg = load_config()
    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(cfg.model_name, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    args = TrainingArguments(
        output_dir=cfg.output_dir,
        per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum,
        learning_rate=cfg.lr,
        num_train_epochs=cfg.epochs,
        lr_scheduler_type="cosine",
        warmup_ratio=0.03,
        bf16=True,
        logging_steps=10,
        save_strategy="epoch",
        save_total_limit=2,
        report_to="none",
        deepspeed=deepspeed_config(stage=cfg.zero_stage),
    )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=SupportSFT(cfg.data_path, tokenizer, cfg.max_len),
        data_collator=PadCollator(tokenizer.pad_token_id),
    )
    trainer.train()
    trainer.save_model(cfg.output_dir)
    tokenizer.save_pretrained(cfg.output_dir)


if __name__ == "__main__":
    main()
