from transformers import LlamaConfig, LlamaForCausalLM


def codelm_1b():
    return LlamaForCausalLM(LlamaConfig(vocab_size=49152, hidden_size=2048, intermediate_size=5632,
                                        num_hidden_layers=22, num_attention_heads=16, max_position_embeddings=2048))
