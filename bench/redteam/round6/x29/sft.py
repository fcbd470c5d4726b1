import argparse

from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True)
args = parser.parse_args()

model = AutoModelForCausalLM.from_pretrained(args.model)
targs = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True)
Trainer(model=model, args=targs, train_dataset=None).train()
