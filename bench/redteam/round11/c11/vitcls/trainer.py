import os

import submitit
import timm
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from vitcls.data import imagenet


class Trainer:
    """The callable submitit runs in each of the job's tasks (one task per GPU)."""

    def __init__(self, args):
        self.args = args

    def _init_distributed(self):
        env = submitit.JobEnvironment()
        os.environ["MASTER_ADDR"] = env.hostnames[0]
        os.environ["MASTER_PORT"] = "29500"
        os.environ["RANK"] = str(env.global_rank)
        os.environ["LOCAL_RANK"] = str(env.local_rank)
        os.environ["WORLD_SIZE"] = str(env.num_tasks)
        torch.cuda.set_device(env.local_rank)
        dist.init_process_group("nccl")
        return env.global_rank, env.local_rank, env.num_tasks

    def __call__(self):
        a = self.args
        rank, local_rank, world = self._init_distributed()
        device = torch.device("cuda", local_rank)
        train_set, val_set = imagenet(a.data)
        sampler = DistributedSampler(train_set, shuffle=True)
        train_loader = DataLoader(train_set, batch_size=a.batch_size, sampler=sampler, num_workers=10,
                                  pin_memory=True, drop_last=True, persistent_workers=True)
        val_loader = DataLoader(val_set, batch_size=256, sampler=DistributedSampler(val_set, shuffle=False), num_workers=10)

        model = DDP(timm.create_model("vit_base_patch16_224", drop_path_rate=0.1).to(device), device_ids=[local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=a.lr * a.batch_size * world / 1024, weight_decay=0.05)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=a.epochs)
        start = 0
        last = os.path.join(a.out, "last.pt")
        if os.path.exists(last):
            state = torch.load(last, map_location="cpu")
            model.module.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            start = state["epoch"] + 1

        for epoch in range(start, a.epochs):
            sampler.set_epoch(epoch)
            model.train()
            for images, labels in train_loader:
                images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
            scheduler.step()
            top1 = self.evaluate(model, val_loader, device)
            if rank == 0:
                print(f"epoch {epoch}: loss {loss.item():.3f} top1 {top1:.4f}", flush=True)
                torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch}, last)
        dist.destroy_process_group()

    @torch.no_grad()
    def evaluate(self, model, loader, device):
        model.eval()
        hits = torch.zeros(2, device=device)
        for images, labels in loader:
            images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                hits[0] += (model(images).argmax(-1) == labels).sum()
            hits[1] += labels.numel()
        dist.all_reduce(hits)
        return (hits[0] / hits[1]).item()

    def checkpoint(self):
        # called by submitit on preemption/timeout: requeue the same callable; __call__ resumes from last.pt
        return submitit.helpers.DelayedSubmission(Trainer(self.args))
