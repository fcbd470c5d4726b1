from tuner.extras.env import configure_cpu_threads

configure_cpu_threads()

from dataclasses import dataclass, field  # noqa: E402

import torch  # noqa: E402
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForSeq2Seq,  # noqa: E402
                          HfArgumentParser, Seq2SeqTrainer, Seq2SeqTrainingArguments)

from tuner.data import build_sft_dataset  # noqa: E402


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="meta-llama/Meta-Llama-3-8B-Instruct")
    flash_attn: str = field(default="sdpa")


@dataclass
class DataArguments:
    dataset: str = field(default="data/identity_alpaca.json")
    cutoff_len: int = field(default=2048)


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, Seq2SeqTrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, torch_dtype=torch.bfloat16,
                                                 attn_implementation=model_args.flash_attn)
    train_ds = build_sft_dataset(data_args.dataset, tokenizer, data_args.cutoff_len)
    trainer = Seq2SeqTrainer(model=model, args=training_args, train_dataset=train_ds,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, pad_to_multiple_of=8),
                             tokenizer=tokenizer)
    trainer.train()
    trainer.save_model()
    trainer.save_state()


if __name__ == "__main__":
    main()
