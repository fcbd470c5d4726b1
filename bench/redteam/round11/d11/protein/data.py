import torch
from torch.utils.data import Dataset


def read_fasta(path):
    seqs, cur = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if cur:
                    seqs.append("".join(cur))
                cur = []
            elif line:
                cur.append(line)
    if cur:
        seqs.append("".join(cur))
    return seqs


class MaskedSequences(Dataset):
    def __init__(self, path, tokenizer, max_len=512, mask_prob=0.15):
        self.seqs = read_fasta(path)
        self.tok = tokenizer
        self.max_len = max_len
        self.mask_prob = mask_prob

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        enc = self.tok(self.seqs[i], truncation=True, max_length=self.max_len, padding="max_length",
                       return_tensors="pt")
        ids = enc["input_ids"][0]
        labels = ids.clone()
        special = torch.tensor(self.tok.get_special_tokens_mask(ids.tolist(), already_has_special_tokens=True),
                               dtype=torch.bool)
        mask = (torch.rand(ids.shape) < self.mask_prob) & ~special
        labels[~mask] = -100
        ids = ids.masked_fill(mask, self.tok.mask_token_id)
        return {"input_ids": ids, "attention_mask": enc["attention_mask"][0], "labels": labels}
