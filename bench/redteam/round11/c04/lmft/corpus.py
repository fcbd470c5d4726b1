import torch


def tokenize_corpus(path: str, tokenizer, seq_len: int) -> torch.Tensor:
    """Concatenate the documents (one per line) with EOS between them and cut fixed blocks."""
    ids = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                ids.extend(tokenizer(line)["input_ids"])
                ids.append(tokenizer.eos_token_id)
    n = len(ids) // seq_len
    return torch.tensor(ids[: n * seq_len], dtype=torch.long).view(n, seq_len)
