# %%
import torch
from accelerate import Accelerator, notebook_launcher

print("GPUs:", torch.cuda.device_count())


# %%
def training_loop(mixed_precision="bf16"):
    accelerator = Accelerator(mixed_precision=mixed_precision)
    net = torch.nn.Linear(10, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    net, opt = accelerator.prepare(net, opt)
    for _ in range(10):
        loss = net(torch.randn(4, 10, device=accelerator.device)).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


# %%
notebook_launcher(training_loop, ("bf16",), num_processes=2)
