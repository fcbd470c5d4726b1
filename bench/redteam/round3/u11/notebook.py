# %%
import torch
from accelerate import Accelerator, notebook_launcher

# %%
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(10, 2)

    def forward(self, x):
        return self.fc(x)


model = Net().cuda()
print(model(torch.randn(1, 10, device="cuda")))

# %%
def training_loop():
    accelerator = Accelerator()
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    net, opt = accelerator.prepare(net, opt)
    for _ in range(10):
        loss = net(torch.randn(4, 10, device=accelerator.device)).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


# %%
notebook_launcher(training_loop, num_processes=4)
