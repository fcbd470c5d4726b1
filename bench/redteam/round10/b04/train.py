"""Supervised fine-tuning with the HF Trainer and DeepSpeed ZeRO-3."""
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

from sft.config import RunConfig
from sft.data import ChatSFT


def main():
    cfg = RunConfig()
    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    model = AutoModelForCausalLM.from_pretrained(cfg.model_name)

    args = TrainingArguments(
        output_dir=cfg.output_dir,
        per_device_train_batch_size=cfg.micro_batch,
        gradient_accumulation_steps=cfg.grad_accum,
        learning_rate=cfg.lr,
        weight_decay=cfg.weight_decay,
        max_grad_norm=cfg.max_grad_norm,
        bf16=cfg.bf16,
        num_train_epochs=cfg.epochs,
        lr_scheduler_type="cosine",
        warmup_ratio=0.03,
        logging_steps=10,
        save_strategy="epoch",
        report_to="none",
        deepspeed=cfg.ds_config,
    )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=ChatSFT(cfg.data_file, tokenizer, cfg.max_len),
        processing_class=tokenizer,
    )
    trainer.train()
    trainer.save_model(cfg.output_dir)


if __name__ == "__main__":
    main()
