import os

from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, Seq2SeqTrainer, Seq2SeqTrainingArguments

HERE = os.path.dirname(__file__)


def main():
    tok = AutoTokenizer.from_pretrained("t5-small")
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")
    args = Seq2SeqTrainingArguments(
        output_dir="out",
        per_device_train_batch_size=8,
        gradient_accumulation_steps=4,
        bf16=True,
        deepspeed=os.path.join(HERE, "configs", "ds_z2.json"),
    )
    trainer = Seq2SeqTrainer(model=model, args=args, tokenizer=tok, train_dataset=None)
    trainer.train()


if __name__ == "__main__":
    main()
