from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": "auto",
    "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 2, "overlap_comm": True},
}


def main():
    model = AutoModelForSequenceClassification.from_pretrained("roberta-large", num_labels=3)
    data = load_from_disk("data/mnli_tok")
    args = TrainingArguments(
        output_dir="out/mnli",
        per_device_train_batch_size=4,
        num_train_epochs=3,
        learning_rate=1e-5,
        bf16=True,
        deepspeed=DS_CONFIG,
    )
    trainer = Trainer(model=model, args=args, train_dataset=data["train"], eval_dataset=data["validation"])
    trainer.train()
    trainer.save_model()


if __name__ == "__main__":
    main()
