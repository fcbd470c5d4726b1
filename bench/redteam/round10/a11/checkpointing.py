import json
import os

import torch
import torch.distributed as dist


def export_hf_checkpoint(model_engine, tokenizer, out_dir):
    """Write a transformers-loadable copy of the fine-tuned model next to the ZeRO checkpoints."""
    if dist.get_rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(model_engine.module.state_dict(), os.path.join(out_dir, "pytorch_model.bin"))
    model_engine.module.config.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    with open(os.path.join(out_dir, "export.json"), "w") as f:
        json.dump({"global_steps": model_engine.global_steps}, f)
