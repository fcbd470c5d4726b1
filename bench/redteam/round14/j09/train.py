"""Fine-tune DeBERTa-v3 on star ratings with the HF Trainer and DeepSpeed ZeRO-2."""
import argparse
import os

import numpy as np
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding, Trainer,
                          TrainingArguments, set_seed)

from config import RunConfig
from data import load_reviews


def parse_args():
    parser = argparse.ArgumentParser(description="reviews classifier")
    parser.add_argument("--train_file", default="data/reviews_train.csv")
    parser.add_argument("--eval_file", default="data/reviews_dev.csv")
    parser.add_argument("--output_dir", default="runs/deberta-reviews")
    parser.add_argument("--deepspeed", default="configs/ds_zero2.json")
    parser.add_argument("--logging_steps", type=int, default=50)
    parser.add_argument("--eval_steps", type=int, default=1000)
    parser.add_argument("--save_total_limit", type=int, default=2)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--preprocess_workers", type=int, default=8)
    parser.add_argument("--report_to", default="tensorboard")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
    return parser.parse_args()


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    preds = np.argmax(logits, axis=-1)
    mae = np.abs(preds - labels).mean()
    return {"accuracy": float((preds == labels).mean()), "mae_stars": float(mae)}


def main():
    cli = parse_args()
    cfg = RunConfig()
    set_seed(cli.seed)

    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model_name, num_labels=cfg.num_labels)
    data = load_reviews(cli.train_file, cli.eval_file, tokenizer, cfg.max_len, num_proc=cli.preprocess_workers)

    training_args = TrainingArguments(
        output_dir=cli.output_dir,
        per_device_train_batch_size=cfg.batch_size,
        per_device_eval_batch_size=2 * cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum,
        learning_rate=cfg.lr,
        weight_decay=cfg.weight_decay,
        num_train_epochs=cfg.epochs,
        warmup_ratio=cfg.warmup_ratio,
        lr_scheduler_type="cosine",
        label_smoothing_factor=cfg.label_smoothing,
        bf16=cfg.bf16,
        deepspeed=cli.deepspeed,
        eval_strategy="steps",
        eval_steps=cli.eval_steps,
        save_strategy="steps",
        save_steps=cli.eval_steps,
        save_total_limit=cli.save_total_limit,
        load_best_model_at_end=True,
        metric_for_best_model="accuracy",
        logging_steps=cli.logging_steps,
        dataloader_num_workers=cli.num_workers,
        report_to=cli.report_to,
        seed=cli.seed,
    )
    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=data["train"],
        eval_dataset=data["validation"],
        data_collator=DataCollatorWithPadding(tokenizer, pad_to_multiple_of=8),
        compute_metrics=compute_metrics,
    )
    trainer.train()
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    trainer.save_metrics("eval", metrics)
    trainer.save_model(os.path.join(cli.output_dir, "best"))
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(os.path.join(cli.output_dir, "best"))


if __name__ == "__main__":
    main()
