import argparse
import torch
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--ds-config", default="configs/ds_zero2.json")
    return p.parse_args()


def main():
    args = parse()
    plugin = DeepSpeedPlugin(hf_ds_config=args.ds_config)
    accelerator = Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
    model = torch.nn.Linear(768, 768)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    ds = torch.utils.data.TensorDataset(torch.randn(10000, 768))
    dl = torch.utils.data.DataLoader(ds, batch_size=16, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        loss = model(x).pow(2).mean()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
