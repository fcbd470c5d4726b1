import deepspeed
import torch
from transformers import AutoModelForCausalLM

from ds_config import get_ds_config

model = AutoModelForCausalLM.from_pretrained("gpt2")
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=get_ds_config())
for step in range(100):
    ids = torch.randint(0, 50257, (2, 512), device=engine.device)
    loss = engine(input_ids=ids, labels=ids).loss
    engine.backward(loss)
    engine.step()
if engine.global_rank == 0:
    engine.module.save_pretrained("out/final")
