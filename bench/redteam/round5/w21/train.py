import torch
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin


def main():
    plugin = DeepSpeedPlugin(hf_ds_config="configs/ds_z3.json", gradient_accumulation_steps=2,
                             gradient_clipping=1.0, zero3_save_16bit_model=True)
    accelerator = Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
    model = torch.nn.Linear(1024, 1024)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(4096, 1024)), batch_size=8, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        with accelerator.accumulate(model):
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
    accelerator.wait_for_everyone()
    state = accelerator.get_state_dict(model)
    if accelerator.is_main_process:
        torch.save(state, "model.pt")


if __name__ == "__main__":
    main()
