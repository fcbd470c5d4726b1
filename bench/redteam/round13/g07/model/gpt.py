import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel


def build_model(args):
    cfg = GPT2Config(n_positions=args.seq_len, n_layer=args.n_layer, n_head=args.n_head, n_embd=args.n_embd,
                     resid_pdrop=args.dropout, embd_pdrop=args.dropout, attn_pdrop=args.dropout)
    return GPT2LMHeadModel(cfg)


class TokenBlocks(Dataset):
    """Non-overlapping blocks of `seq_len` tokens from a memory-mapped uint16 file."""

    def __init__(self, path, seq_len):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.tokens) // self.seq_len

    def __getitem__(self, i):
        start = i * self.seq_len
        # GPT2LMHeadModel shifts the labels itself
        return torch.from_numpy(self.tokens[start : start + self.seq_len].astype(np.int64))
