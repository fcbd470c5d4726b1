import json
from datasets import load_from_disk
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments


def main():
    with open("configs/z2.json") as f:
        cfg = json.load(f)
    cfg.update(scheduler={"type": "WarmupLR", "params": {"warmup_num_steps": 500}})
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    data = load_from_disk("data/wiki")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, lr_scheduler_type="cosine",
                             learning_rate=2e-5, bf16=True, deepspeed=cfg)
    trainer = Trainer(model=model, args=args, train_dataset=data["train"])
    trainer.train()


if __name__ == "__main__":
    main()
