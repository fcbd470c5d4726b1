import torch
from accelerate import Accelerator

accelerator = Accelerator()
model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(16)])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, opt = accelerator.prepare(model, opt)
for _ in range(100):
    loss = model(torch.randn(2, 4096, device=accelerator.device)).pow(2).mean()
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
