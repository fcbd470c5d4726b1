import sys
from dataclasses import dataclass, field
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, HfArgumentParser, Trainer, TrainingArguments


@dataclass
class ModelArgs:
    model_name: str = field(default="meta-llama/Llama-3.2-1B")


def main():
    parser = HfArgumentParser((ModelArgs, TrainingArguments))
    model_args, training_args = parser.parse_json_file(json_file=sys.argv[1])
    tok = AutoTokenizer.from_pretrained(model_args.model_name)
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name)
    data = load_dataset("json", data_files="data/sft.jsonl")["train"]
    trainer = Trainer(model=model, args=training_args, train_dataset=data, tokenizer=tok)
    trainer.train()
    trainer.save_model(training_args.output_dir)


if __name__ == "__main__":
    main()
