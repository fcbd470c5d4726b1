from transformers import GPT2Config, GPT2LMHeadModel

SIZES = {
    "350m": dict(n_embd=1024, n_layer=24, n_head=16),
    "760m": dict(n_embd=1536, n_layer=24, n_head=16),
}


def build_model(size: str, seq_len: int):
    cfg = GPT2Config(n_positions=seq_len, vocab_size=50304, **SIZES[size])
    return GPT2LMHeadModel(cfg)
