import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, AutoTokenizer


def main():
    accelerator = Accelerator()
    tok = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    ids = torch.randint(0, 50000, (512, 128))
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(ids), batch_size=4, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        loss = model(input_ids=x, labels=x).loss
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        unwrapped = accelerator.unwrap_model(model)
        unwrapped.save_pretrained("out", state_dict=accelerator.get_state_dict(model))
        tok.save_pretrained("out")

if __name__ == "__main__":
    main()
