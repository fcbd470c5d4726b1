import json

import deepspeed
from transformers import EsmConfig, EsmForMaskedLM

ESM_3B = "facebook/esm2_t36_3B_UR50D"


def zero_stage(ds_config_path: str) -> int:
    with open(ds_config_path) as f:
        return json.load(f)["zero_optimization"]["stage"]


def build_model(ds_config_path: str):
    """Instantiate ESM-2 3B with every parameter created already partitioned (ZeRO-3)."""
    config = EsmConfig.from_pretrained(ESM_3B)
    with deepspeed.zero.Init(config_dict_or_path=ds_config_path, enabled=zero_stage(ds_config_path) == 3):
        model = EsmForMaskedLM(config)
    return model
