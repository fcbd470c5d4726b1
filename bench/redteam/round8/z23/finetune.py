from datasets import load_dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments

from run_config import RunConfig


def main(cfg: RunConfig):
    tok = AutoTokenizer.from_pretrained(cfg.model_name)
    ds = load_dataset("glue", "mnli")["train"].map(
        lambda b: tok(b["premise"], b["hypothesis"], truncation=True, max_length=128), batched=True)
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model_name, num_labels=3)
    args = TrainingArguments(
        output_dir=cfg.output_dir,
        per_device_train_batch_size=cfg.micro_batch,
        gradient_accumulation_steps=cfg.grad_accum,
        learning_rate=cfg.lr,
        weight_decay=cfg.weight_decay,
        num_train_epochs=cfg.epochs,
        bf16=cfg.bf16,
        deepspeed=cfg.ds_config,
        report_to=[],
    )
    Trainer(model=model, args=args, train_dataset=ds, tokenizer=tok).train()


if __name__ == "__main__":
    main(RunConfig())
