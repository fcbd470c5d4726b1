from datasets import load_from_disk
from transformers import AutoModelForSeq2SeqLM, HfArgumentParser, Seq2SeqTrainingArguments
from trainers import SummaryTrainer


def main():
    (args,) = HfArgumentParser(Seq2SeqTrainingArguments).parse_args_into_dataclasses()
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-base")
    data = load_from_disk("data/cnn")
    SummaryTrainer(model=model, args=args, train_dataset=data["train"]).train()


if __name__ == "__main__":
    main()
