import deepspeed
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def save_all(engine, tokenizer, out):
    engine.save_checkpoint(out)
    engine.save_16bit_model(out)
    if engine.global_rank == 0:
        tokenizer.save_pretrained(out)


def main():
    tok = AutoTokenizer.from_pretrained("mistralai/Mistral-7B-v0.1")
    model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="zero3.json")
    for step in range(1000):
        ids = torch.randint(0, 32000, (1, 1024), device=engine.device)
        engine.backward(engine(input_ids=ids, labels=ids).loss)
        engine.step()
        if step % 500 == 499:
            save_all(engine, tok, f"out/step{step}")


if __name__ == "__main__":
    main()
