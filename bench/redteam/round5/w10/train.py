import torch
from accelerate import Accelerator
from evaluation import run_eval


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(32, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train = torch.utils.data.TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,)))
    val = torch.utils.data.TensorDataset(torch.randn(256, 32), torch.randint(0, 4, (256,)))
    tl = torch.utils.data.DataLoader(train, batch_size=32, shuffle=True)
    vl = torch.utils.data.DataLoader(val, batch_size=64)
    model, opt, tl, vl = accelerator.prepare(model, opt, tl, vl)
    for epoch in range(3):
        for x, y in tl:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
        run_eval(accelerator, model, vl)


if __name__ == "__main__":
    main()
