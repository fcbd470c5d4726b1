from datasets import load_from_disk
from transformers import AutoModelForCausalLM, TrainingArguments
from dpo_trainer import SimpleDPOTrainer

model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, remove_unused_columns=False)
SimpleDPOTrainer(model=model, args=args, train_dataset=load_from_disk("data/pairs")).train()
