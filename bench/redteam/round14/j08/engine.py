import torch
import torch.nn.functional as F
from torch.utils.data import DistributedSampler

import util.misc as utils


def train_one_epoch(model, data_loader, optimizer, lr_scheduler, device, epoch, print_freq=20):
    if isinstance(data_loader.sampler, DistributedSampler):
        data_loader.sampler.set_epoch(epoch)
    model.train()
    for i, (images, masks) in enumerate(data_loader):
        images, masks = images.to(device, non_blocking=True), masks.to(device, non_blocking=True)
        out = model(images)
        loss_main = F.cross_entropy(out["out"], masks, ignore_index=255)
        loss_aux = F.cross_entropy(out["aux"], masks, ignore_index=255)
        loss = loss_main + 0.5 * loss_aux
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        if i % print_freq == 0:
            reduced = utils.reduce_dict({"loss": loss.detach(), "aux": loss_aux.detach()})
            print(f"Epoch [{epoch}] [{i}/{len(data_loader)}] loss {reduced['loss']:.4f} aux {reduced['aux']:.4f}")


@torch.no_grad()
def evaluate(model, data_loader, device, num_classes):
    model.eval()
    confmat = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    for images, masks in data_loader:
        images, masks = images.to(device), masks.to(device)
        pred = model(images)["out"].argmax(1)
        k = masks != 255
        confmat += torch.bincount(num_classes * masks[k] + pred[k], minlength=num_classes ** 2).reshape(num_classes, -1)
    if utils.is_dist_avail_and_initialized():
        torch.distributed.all_reduce(confmat)
    iou = confmat.diag() / (confmat.sum(0) + confmat.sum(1) - confmat.diag()).clamp(min=1)
    return iou.mean().item() * 100
