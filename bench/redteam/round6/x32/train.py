from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

from settings import RunConfig


def main(cfg: RunConfig):
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model, num_labels=2)
    args = TrainingArguments(
        output_dir="out",
        per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.accum,
        learning_rate=cfg.lr,
        bf16=True,
        deepspeed=cfg.deepspeed,
    )
    Trainer(model=model, args=args, train_dataset=None).train()


if __name__ == "__main__":
    main(RunConfig())
