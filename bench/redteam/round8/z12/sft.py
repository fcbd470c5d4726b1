import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer

MODEL = "meta-llama/Llama-3.2-1B"


def main():
    accelerator = Accelerator()
    tok = AutoTokenizer.from_pretrained(MODEL)
    model = AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.bfloat16)
    samples = [torch.randint(0, 32000, (512,)) for _ in range(4096)]
    loader = DataLoader(samples, batch_size=2, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    for step, ids in enumerate(loader):
        with accelerator.accumulate(model):
            loss = model(input_ids=ids, labels=ids).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
    accelerator.wait_for_everyone()
    state_dict = accelerator.get_state_dict(model)
    accelerator.unwrap_model(model).save_pretrained("sft-out", is_main_process=accelerator.is_main_process,
                                                    save_function=accelerator.save, state_dict=state_dict)
    if accelerator.is_main_process:
        tok.save_pretrained("sft-out")


if __name__ == "__main__":
    main()
