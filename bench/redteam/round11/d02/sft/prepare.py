"""Tokenise the instruction data once, before the ranks start (make prerequisite)."""
import argparse
import json

from datasets import load_dataset
from transformers import AutoTokenizer

PROMPT = "### Instruction:\n{instruction}\n\n### Input:\n{input}\n\n### Response:\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--tokenizer", default="openlm-research/open_llama_3b_v2")
    args = parser.parse_args()
    tok = AutoTokenizer.from_pretrained(args.tokenizer)
    with open(args.out, "w") as f:
        for ex in load_dataset("tatsu-lab/alpaca", split="train"):
            prompt = PROMPT.format(**ex)
            ids = tok(prompt + ex["output"] + tok.eos_token)["input_ids"][:1024]
            n_prompt = len(tok(prompt)["input_ids"])
            f.write(json.dumps({"input_ids": ids, "n_prompt": n_prompt}) + "\n")


if __name__ == "__main__":
    main()
