from dataclasses import dataclass

import numpy as np
from transformers import AutoModelForSequenceClassification, AutoTokenizer, HfArgumentParser, TrainingArguments

from nli import NLITrainer
from nli.data import DynamicPad, PairDataset


@dataclass
class DataArgs:
    model_name: str = "microsoft/deberta-v3-base"
    train_file: str = "data/mnli/train.jsonl"
    eval_file: str = "data/mnli/dev_matched.jsonl"
    max_len: int = 256


def accuracy(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}


def main():
    data_args, training_args = HfArgumentParser((DataArgs, TrainingArguments)).parse_args_into_dataclasses()
    tokenizer = AutoTokenizer.from_pretrained(data_args.model_name)
    model = AutoModelForSequenceClassification.from_pretrained(data_args.model_name, num_labels=3)
    trainer = NLITrainer(
        model=model,
        args=training_args,
        train_dataset=PairDataset(data_args.train_file, tokenizer, data_args.max_len),
        eval_dataset=PairDataset(data_args.eval_file, tokenizer, data_args.max_len),
        data_collator=DynamicPad(tokenizer.pad_token_id),
        compute_metrics=accuracy,
    )
    trainer.train()
    trainer.save_model()


if __name__ == "__main__":
    main()
