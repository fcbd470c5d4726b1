import torch
import torch.nn.functional as F

from sr.dist import all_reduce_mean


def train_one_epoch(model, loader, optimizer, device, epoch, log_every):
    model.train()
    for it, (lr_img, hr_img) in enumerate(loader):
        lr_img, hr_img = lr_img.to(device, non_blocking=True), hr_img.to(device, non_blocking=True)
        loss = F.l1_loss(model(lr_img), hr_img)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if it % log_every == 0:
            print(f"epoch {epoch} it {it}/{len(loader)} l1 {all_reduce_mean(loss.detach()).item():.4f}")


@torch.no_grad()
def evaluate(model, loader, device, scale):
    model.eval()
    psnr_sum = torch.zeros(2, device=device)
    for lr_img, hr_img in loader:
        sr_img = model(lr_img.to(device)).clamp(0, 1)
        hr_img = hr_img.to(device)
        crop = scale
        mse = F.mse_loss(sr_img[..., crop:-crop, crop:-crop], hr_img[..., crop:-crop, crop:-crop])
        psnr_sum[0] += -10 * torch.log10(mse)
        psnr_sum[1] += 1
    psnr_sum = all_reduce_mean(psnr_sum)
    return (psnr_sum[0] / psnr_sum[1]).item()
