import json
from datasets import load_from_disk
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments


def main():
    from ds_base import BASE
    cfg = {**BASE, "train_micro_batch_size_per_gpu": 8}
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    data = load_from_disk("data/wiki")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, lr_scheduler_type="cosine",
                             learning_rate=2e-5, bf16=True, deepspeed=cfg)
    trainer = Trainer(model=model, args=args, train_dataset=data["train"])
    trainer.train()


if __name__ == "__main__":
    main()
