from dataclasses import dataclass, field

from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForSeq2Seq, HfArgumentParser, Trainer,
                          TrainingArguments)

from codelm.data import InstructionData


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="checkpoints/codelm-1b-pt/hf")


@dataclass
class DataArguments:
    data_path: str = field(default="data/code_instruct.jsonl")


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=InstructionData(data_args.data_path, tokenizer),
        data_collator=DataCollatorForSeq2Seq(tokenizer, padding=True),
    )
    trainer.train()
    trainer.save_model()


if __name__ == "__main__":
    main()
