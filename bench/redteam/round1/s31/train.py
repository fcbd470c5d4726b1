import deepspeed
import torch
from transformers import AutoModelForCausalLM

from utils.threads import configure_cpu_threads


def main():
    configure_cpu_threads()
    deepspeed.init_distributed()
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B")
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    for step in range(1000):
        batch = torch.randint(0, 1000, (2, 1024), device=engine.device)
        loss = engine(input_ids=batch, labels=batch).loss
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
