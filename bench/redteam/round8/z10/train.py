from datasets import load_dataset
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, Trainer,
                          TrainingArguments)

from callbacks import ExportOnSave


def main():
    tok = AutoTokenizer.from_pretrained("bert-base-uncased")
    ds = load_dataset("imdb")["train"].map(lambda b: tok(b["text"], truncation=True, max_length=256), batched=True)
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=1,
                             save_steps=500, bf16=True, report_to=[])
    trainer = Trainer(model=model, args=args, train_dataset=ds, tokenizer=tok, callbacks=[ExportOnSave()])
    trainer.train()


if __name__ == "__main__":
    main()
