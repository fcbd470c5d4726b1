import torch
net = torch.compile(torch.nn.Linear(512, 512).to("cuda:0"))
x = torch.randn(64, 512, device="cuda:0")
for _ in range(10):
    net(x)
torch.cuda.synchronize(0)
