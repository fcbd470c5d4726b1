from datasets import load_from_disk
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

DS = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "gradient_clipping": 1.0,
    "bf16": {"enabled": True},
    "zero_optimization": {"stage": 2},
}


def main():
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, gradient_accumulation_steps=2,
                             max_grad_norm=1.0, bf16=True, deepspeed=DS)
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    Trainer(model=model, args=args, train_dataset=load_from_disk("data/tok")).train()


if __name__ == "__main__":
    main()
