from datasets import load_from_disk
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments


def main():
    (args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
    data = load_from_disk("data/sft")
    Trainer(model=model, args=args, train_dataset=data).train()


if __name__ == "__main__":
    main()
