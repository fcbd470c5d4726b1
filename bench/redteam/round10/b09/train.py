"""SFT of Llama-2-7B with the HF Trainer; all TrainingArguments come from a JSON file."""
import sys
from dataclasses import dataclass, field

from datasets import load_dataset
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, HfArgumentParser,
                          Trainer, TrainingArguments)

from export import save_final


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="meta-llama/Llama-2-7b-hf")
    data_file: str = field(default="data/sft.jsonl")
    max_len: int = 2048


def main():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    if len(sys.argv) == 2 and sys.argv[1].endswith(".json"):
        model_args, training_args = parser.parse_json_file(json_file=sys.argv[1])
    else:
        model_args, training_args = parser.parse_args_into_dataclasses()

    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)

    raw = load_dataset("json", data_files=model_args.data_file, split="train")
    ds = raw.map(lambda r: tokenizer(r["text"], truncation=True, max_length=model_args.max_len),
                 remove_columns=raw.column_names)
    trainer = Trainer(model=model, args=training_args, train_dataset=ds,
                      data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
    trainer.train()
    save_final(trainer, training_args.output_dir)


if __name__ == "__main__":
    main()
