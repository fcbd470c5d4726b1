from datasets import load_from_disk
from transformers import AutoModelForCausalLM, TrainingArguments
from my_trainer import MetricTrainer


def main():
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    data = load_from_disk("data/wiki")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, eval_strategy="steps", eval_steps=500)
    MetricTrainer(model=model, args=args, train_dataset=data["train"], eval_dataset=data["test"]).train()


if __name__ == "__main__":
    main()
