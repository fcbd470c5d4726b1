# %% [markdown]
# Quick fine-tune from the notebook: uses every GPU of the box.

# %%
import torch
from accelerate import Accelerator, notebook_launcher

model = torch.nn.Linear(256, 10)
print("params on", model.to("cuda").weight.device)


# %%
def training_loop():
    accelerator = Accelerator()
    m = torch.nn.Linear(256, 10)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    m, opt = accelerator.prepare(m, opt)
    for _ in range(10):
        loss = m(torch.randn(8, 256, device=accelerator.device)).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


# %%
notebook_launcher(training_loop, num_processes=2)
