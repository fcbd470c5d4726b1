from dataclasses import dataclass, field

import transformers
from datasets import load_from_disk
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="meta-llama/Llama-2-7b-hf")


@dataclass
class TrainingArguments(transformers.TrainingArguments):
    deepspeed: str = field(default="ds_offload.json")
    model_max_length: int = field(default=2048)


def train():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    train_dataset = load_from_disk("data/alpaca_tok")
    trainer = Trainer(model=model, args=training_args, train_dataset=train_dataset)
    trainer.train()
    trainer.save_model(training_args.output_dir)


if __name__ == "__main__":
    train()
