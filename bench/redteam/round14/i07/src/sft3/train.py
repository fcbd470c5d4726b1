import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from sft3 import cli, data, dist_utils
from sft3.engine import Zero3Trainer


def main():
    args = cli.build_parser().parse_args()
    dist_utils.init()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.unk_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    examples = data.load_examples(args.train_file, tokenizer, args.max_length)
    Zero3Trainer(model, tokenizer, examples, args).train()


if __name__ == "__main__":
    main()
