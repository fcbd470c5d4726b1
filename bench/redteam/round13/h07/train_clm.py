"""Causal-LM finetuning with the HF Trainer (a trimmed run_clm.py); see README.md for the launch."""
from dataclasses import dataclass, field
from itertools import chain

import torch
from datasets import load_dataset
from transformers import (AutoModelForCausalLM, AutoTokenizer, HfArgumentParser, Trainer,
                          TrainingArguments, default_data_collator)


@dataclass
class ScriptArguments:
    model_name_or_path: str = field(default="mistralai/Mistral-7B-v0.1")
    dataset_name: str = field(default="wikitext")
    dataset_config_name: str = field(default="wikitext-103-raw-v1")
    block_size: int = field(default=2048)


def group_texts(examples, block_size):
    concatenated = {k: list(chain(*examples[k])) for k in examples.keys()}
    total = (len(concatenated["input_ids"]) // block_size) * block_size
    result = {k: [t[i:i + block_size] for i in range(0, total, block_size)] for k, t in concatenated.items()}
    result["labels"] = result["input_ids"].copy()
    return result


def main():
    parser = HfArgumentParser((ScriptArguments, TrainingArguments))
    script_args, training_args = parser.parse_args_into_dataclasses()

    raw = load_dataset(script_args.dataset_name, script_args.dataset_config_name)
    tokenizer = AutoTokenizer.from_pretrained(script_args.model_name_or_path)

    with training_args.main_process_first(desc="tokenize"):
        tokenized = raw.map(lambda b: tokenizer(b["text"]), batched=True, remove_columns=["text"])
        lm_data = tokenized.map(group_texts, batched=True, fn_kwargs={"block_size": script_args.block_size})

    model = AutoModelForCausalLM.from_pretrained(script_args.model_name_or_path, torch_dtype=torch.bfloat16)
    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=lm_data["train"],
        eval_dataset=lm_data["validation"],
        data_collator=default_data_collator,
    )
    trainer.train()
    trainer.save_model()
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    trainer.save_metrics("eval", metrics)


if __name__ == "__main__":
    main()
