import sys
from dataclasses import dataclass, field

from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments


@dataclass
class ModelArguments:
    model_name: str = field(default="facebook/opt-350m")


def main():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_json_file(json_file=sys.argv[1])
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name)
    trainer = Trainer(model=model, args=training_args, train_dataset=None)
    trainer.train()


if __name__ == "__main__":
    main()
