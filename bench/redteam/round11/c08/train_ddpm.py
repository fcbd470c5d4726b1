import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision.transforms as T
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.datasets import ImageFolder
from torchvision.utils import save_image

from diffusion.schedule import LinearSchedule, ddpm_sample
from diffusion.unet import TinyUNet
from utils.timing import StepTimer


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--sample-every", type=int, default=10)
    parser.add_argument("--out", default="runs/ddpm")
    return parser.parse_args()


def main():
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    device = torch.device("cuda", local_rank)

    tf = T.Compose([T.Resize(64), T.CenterCrop(64), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])
    dataset = ImageFolder(args.data, transform=tf)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=6, pin_memory=True, drop_last=True)

    schedule = LinearSchedule(device=device)
    model = DDP(TinyUNet().to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        with StepTimer("train") as epoch_timer:
            for images, _ in loader:
                x0 = images.to(device, non_blocking=True)
                noise = torch.randn_like(x0)
                t = torch.randint(0, schedule.steps, (x0.size(0),), device=device)
                loss = F.mse_loss(model(schedule.add_noise(x0, noise, t), t), noise)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
        if rank == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}, {epoch_timer.seconds:.0f}s (slowest rank)", flush=True)
        if rank == 0 and (epoch + 1) % args.sample_every == 0:
            os.makedirs(args.out, exist_ok=True)
            with StepTimer("sample") as sample_timer:
                grid = ddpm_sample(model.module, schedule, n=64, shape=(3, 64, 64), device=device)
            save_image(grid * 0.5 + 0.5, os.path.join(args.out, f"samples_{epoch + 1:04d}.png"), nrow=8)
            torch.save(model.module.state_dict(), os.path.join(args.out, "unet_last.pt"))
            print(f"sampled 64 images in {sample_timer.seconds:.0f}s", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
