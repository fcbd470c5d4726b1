from dataclasses import dataclass, field
from datasets import load_from_disk
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments


@dataclass
class MyTrainingArguments(TrainingArguments):
    per_device_train_batch_size: int = field(default=16)
    gradient_accumulation_steps: int = field(default=1)


def main():
    parser = HfArgumentParser(MyTrainingArguments)
    (args,) = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    Trainer(model=model, args=args, train_dataset=load_from_disk("data/train")).train()


if __name__ == "__main__":
    main()
