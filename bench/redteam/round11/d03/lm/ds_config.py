"""DeepSpeed config assembly: a shared base JSON plus a per-hardware override JSON."""
import copy
import json


def deep_merge(base: dict, override: dict) -> dict:
    """Recursively merge `override` into a copy of `base` (override wins on leaves)."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def load_ds_config(base_path: str, override_path: str | None = None) -> dict:
    with open(base_path) as f:
        cfg = json.load(f)
    if override_path:
        with open(override_path) as f:
            cfg = deep_merge(cfg, json.load(f))
    return cfg
