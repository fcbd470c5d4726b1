"""Model shapes of the scaling sweep."""
MODEL_PRESETS = {
    "7b": {"hidden_size": 4096, "num_layers": 32, "num_heads": 32, "ffn_size": 11008},
    "13b": {"hidden_size": 5120, "num_layers": 40, "num_heads": 40, "ffn_size": 13824},
}
