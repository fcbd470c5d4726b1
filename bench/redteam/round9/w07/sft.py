from dataclasses import dataclass

import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, HfArgumentParser


@dataclass
class SftArgs:
    model_name: str = "meta-llama/Llama-3.2-3B"
    dataset: str = "HuggingFaceH4/ultrachat_200k"
    lr: float = 1e-5
    epochs: int = 1
    micro_batch: int = 4
    max_length: int = 2048
    output_dir: str = "out/sft"


def main():
    (args,) = HfArgumentParser(SftArgs).parse_args_into_dataclasses()
    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    tokenizer.pad_token = tokenizer.eos_token

    raw = load_dataset(args.dataset, split="train_sft")
    tokenized = raw.map(lambda ex: tokenizer(tokenizer.apply_chat_template(ex["messages"], tokenize=False),
                                             truncation=True, max_length=args.max_length),
                        remove_columns=raw.column_names)
    collate = DataCollatorForLanguageModeling(tokenizer, mlm=False)
    loader = DataLoader(tokenized, batch_size=args.micro_batch, shuffle=True, collate_fn=collate)

    model = AutoModelForCausalLM.from_pretrained(args.model_name, torch_dtype=torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    model.train()
    for _ in range(args.epochs):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
    accelerator.wait_for_everyone()
    accelerator.save_state(args.output_dir)


if __name__ == "__main__":
    main()
