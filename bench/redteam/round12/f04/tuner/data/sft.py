from datasets import load_dataset

IGNORE_INDEX = -100


def build_sft_dataset(path, tokenizer, cutoff_len):
    ds = load_dataset("json", data_files=path, split="train")

    def encode(ex):
        prompt = tokenizer.apply_chat_template([{"role": "user", "content": ex["instruction"]}],
                                               tokenize=False, add_generation_prompt=True)
        p_ids = tokenizer(prompt, add_special_tokens=False).input_ids
        r_ids = tokenizer(ex["output"] + tokenizer.eos_token, add_special_tokens=False).input_ids
        ids = (p_ids + r_ids)[:cutoff_len]
        labels = ([IGNORE_INDEX] * len(p_ids) + r_ids)[:cutoff_len]
        return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": labels}

    return ds.map(encode, remove_columns=ds.column_names)
