import argparse

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

from sft import settings as S
from sft.data import Collator, SupervisedDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", required=True)
    parser.add_argument("--output_dir", default="out/mistral-7b-sft")
    cli = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(S.BASE_MODEL, model_max_length=S.MAX_LEN, use_fast=False)
    tokenizer.pad_token = tokenizer.unk_token
    model = AutoModelForCausalLM.from_pretrained(S.BASE_MODEL, torch_dtype=torch.bfloat16)

    args = TrainingArguments(
        output_dir=cli.output_dir,
        per_device_train_batch_size=S.PER_DEVICE_BATCH,
        gradient_accumulation_steps=S.GRAD_ACCUM,
        learning_rate=S.LEARNING_RATE,
        num_train_epochs=S.EPOCHS,
        warmup_ratio=S.WARMUP_RATIO,
        lr_scheduler_type="cosine",
        bf16=True,
        logging_steps=10,
        save_strategy="epoch",
        gradient_checkpointing=True,
        deepspeed=S.DS_CONFIG,
        report_to="none",
    )
    train_ds = SupervisedDataset(cli.data_path, tokenizer, S.MAX_LEN)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, data_collator=Collator(tokenizer.pad_token_id))
    trainer.train()
    trainer.save_model(cli.output_dir)


if __name__ == "__main__":
    main()
