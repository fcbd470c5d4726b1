from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
from hf_callbacks import SyncCallback


def main():
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    data = load_from_disk("data/sst2")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, eval_strategy="epoch")
    trainer = Trainer(model=model, args=args, train_dataset=data["train"], eval_dataset=data["validation"],
                      callbacks=[SyncCallback()])
    trainer.train()


if __name__ == "__main__":
    main()
