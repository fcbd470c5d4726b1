from datasets import load_from_disk
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

from configs import DS


def main():
    args = TrainingArguments(
        output_dir="out",
        per_device_train_batch_size=4,
        learning_rate=2e-5,
        lr_scheduler_type="cosine",
        warmup_ratio=0.03,
        num_train_epochs=1,
        deepspeed=DS,
    )
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B")
    Trainer(model=model, args=args, train_dataset=load_from_disk("data/sft")).train()


if __name__ == "__main__":
    main()
