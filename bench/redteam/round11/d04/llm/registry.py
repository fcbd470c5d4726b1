from transformers import LlamaConfig

SIZES = {
    "350m": dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=16),
    "1b": dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32),
    "7b": dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32),
}


def llama_config(size: str) -> LlamaConfig:
    return LlamaConfig(vocab_size=32000, max_position_embeddings=4096, **SIZES[size])
