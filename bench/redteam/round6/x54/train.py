import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM

accelerator = Accelerator()
model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-1.4b")
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
model, opt = accelerator.prepare(model, opt)
for _ in range(10):
    ids = torch.randint(0, 50000, (1, 512), device=accelerator.device)
    accelerator.backward(model(input_ids=ids, labels=ids).loss)
    opt.step()
    opt.zero_grad()
