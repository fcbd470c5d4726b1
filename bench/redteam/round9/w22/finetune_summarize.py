from datasets import load_dataset
from transformers import (AutoModelForSeq2SeqLM, AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer,
                          Seq2SeqTrainingArguments)

from ds_settings import zero_config

CHECKPOINT = "google/flan-t5-large"


def main():
    tokenizer = AutoTokenizer.from_pretrained(CHECKPOINT)
    model = AutoModelForSeq2SeqLM.from_pretrained(CHECKPOINT)
    raw = load_dataset("EdinburghNLP/xsum")

    def preprocess(batch):
        inputs = tokenizer(["summarize: " + d for d in batch["document"]], max_length=512, truncation=True)
        inputs["labels"] = tokenizer(text_target=batch["summary"], max_length=64, truncation=True)["input_ids"]
        return inputs

    tokenized = raw.map(preprocess, batched=True, remove_columns=raw["train"].column_names)
    args = Seq2SeqTrainingArguments(
        output_dir="out/flan-t5-xsum",
        per_device_train_batch_size=8,
        gradient_accumulation_steps=4,
        learning_rate=1e-4,
        warmup_steps=500,
        num_train_epochs=3,
        bf16=True,
        eval_strategy="epoch",
        save_strategy="epoch",
        deepspeed=zero_config(stage=2),
        report_to="none",
    )
    trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=tokenized["train"],
                             eval_dataset=tokenized["validation"], tokenizer=tokenizer,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model))
    trainer.train()


if __name__ == "__main__":
    main()
