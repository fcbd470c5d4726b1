import hydra
from omegaconf import DictConfig
from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments


@hydra.main(version_base=None, config_path="conf", config_name="train")
def main(cfg: DictConfig):
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model, num_labels=3)
    data = load_from_disk("data/mnli")
    args = TrainingArguments(
        output_dir=cfg.output_dir,
        learning_rate=cfg.lr,
        per_device_train_batch_size=cfg.batch_size,
        lr_scheduler_type="cosine",
        deepspeed=cfg.deepspeed,
    )
    Trainer(model=model, args=args, train_dataset=data["train"]).train()


if __name__ == "__main__":
    main()
