import torch


class LinearSchedule:
    def __init__(self, steps=1000, beta_start=1e-4, beta_end=0.02, device="cpu"):
        self.steps = steps
        self.betas = torch.linspace(beta_start, beta_end, steps, device=device)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, 0)

    def add_noise(self, x0, noise, t):
        ab = self.alpha_bars[t].view(-1, 1, 1, 1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


@torch.no_grad()
def ddpm_sample(model, schedule, n, shape, device):
    model.eval()
    x = torch.randn(n, *shape, device=device)
    for t in reversed(range(schedule.steps)):
        tt = torch.full((n,), t, device=device, dtype=torch.long)
        eps = model(x, tt)
        a, ab, b = schedule.alphas[t], schedule.alpha_bars[t], schedule.betas[t]
        x = (x - b / (1 - ab).sqrt() * eps) / a.sqrt()
        if t > 0:
            x = x + b.sqrt() * torch.randn_like(x)
    model.train()
    return x.clamp(-1, 1)
