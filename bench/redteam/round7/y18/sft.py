from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer

from args import MyTrainingArguments

(targs,) = HfArgumentParser(MyTrainingArguments).parse_args_into_dataclasses()
model = AutoModelForCausalLM.from_pretrained(targs.model_name)
trainer = Trainer(model=model, args=targs, train_dataset=None)
trainer.train()
