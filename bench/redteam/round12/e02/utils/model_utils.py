from transformers import AutoConfig, AutoModelForCausalLM
from transformers.integrations import HfDeepSpeedConfig


def create_hf_model(model_name_or_path, tokenizer, ds_config=None):
    model_config = AutoConfig.from_pretrained(model_name_or_path)
    model_config.dropout = 0.0
    # keep this object alive: with ZeRO-3 it makes from_pretrained load straight into partitions
    dschf = HfDeepSpeedConfig(ds_config) if ds_config is not None and ds_config["zero_optimization"]["stage"] == 3 else None
    model = AutoModelForCausalLM.from_pretrained(model_name_or_path, config=model_config)
    model.config.end_token_id = tokenizer.eos_token_id
    model.config.pad_token_id = model.config.eos_token_id
    model.resize_token_embeddings(int(8 * round(len(tokenizer) / 8.0)))
    return model, dschf
