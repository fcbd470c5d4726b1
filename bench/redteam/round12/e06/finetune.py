import argparse
import os

import timm
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from vitcls.data import build_dataloader
from vitcls.engine import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--model", default="vit_base_patch16_224.augreg_in21k")
    parser.add_argument("--num-classes", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--compile", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--output", default="ckpt/vit_b16_ft.pt")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()

    train_loader = build_dataloader(args.data, True, args.batch_size)
    val_loader = build_dataloader(args.data, False, args.batch_size)
    net = timm.create_model(args.model, pretrained=True, num_classes=args.num_classes, drop_path_rate=0.1).cuda()
    model = DDP(net, device_ids=[local_rank])
    decay = [p for n, p in net.named_parameters() if p.ndim > 1 and "pos_embed" not in n]
    no_decay = [p for n, p in net.named_parameters() if p.ndim <= 1 or "pos_embed" in n]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr * args.batch_size * dist.get_world_size() / 512)

    trainer = Trainer(model, optimizer, train_loader, val_loader, args.epochs,
                      warmup_steps=5 * len(train_loader), compile_model=args.compile)
    trainer.fit(log=print if rank == 0 else (lambda *_: None))
    if rank == 0:
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        torch.save(model.module.state_dict(), args.output)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
