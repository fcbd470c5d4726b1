from transformers import GPT2Config, GPT2LMHeadModel


def gpt_1b3():
    cfg = GPT2Config(n_embd=2048, n_layer=24, n_head=16, n_positions=2048, vocab_size=50304)
    return GPT2LMHeadModel(cfg)
