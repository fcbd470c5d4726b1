import torch
from accelerate import Accelerator

accelerator = Accelerator()
model = torch.nn.Linear(512, 512)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, opt = accelerator.prepare(model, opt)
for _ in range(10):
    loss = model(torch.randn(8, 512, device=accelerator.device)).sum()
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
