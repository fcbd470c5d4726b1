import deepspeed
import torch
from transformers import AutoModelForCausalLM

from ds_config import get_config


def main():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf")
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=get_config())
    for step in range(100):
        ids = torch.randint(0, 32000, (2, 512), device=engine.device)
        engine.backward(engine(input_ids=ids, labels=ids).loss)
        engine.step()
    engine.save_16bit_model("out", "pytorch_model.bin")


if __name__ == "__main__":
    main()
