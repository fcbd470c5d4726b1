import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoTokenizer, get_linear_schedule_with_warmup

from data.mnli import MNLIPairs, train_loader
from engine.distill import Distiller
from models.teacher import check_compatible, load_student, load_teacher


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--teacher", required=True)
    parser.add_argument("--student", default="distilroberta-base")
    parser.add_argument("--train-file", required=True)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--temperature", type=float, default=2.0)
    parser.add_argument("--alpha", type=float, default=0.7)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    tokenizer = AutoTokenizer.from_pretrained(args.student)
    dataset = MNLIPairs(args.train_file, tokenizer)
    loader, sampler = train_loader(dataset, args.batch_size)

    teacher = load_teacher(args.teacher, device)
    student_model = load_student(args.student, num_labels=3)
    check_compatible(teacher.config, student_model.config)
    student = DDP(student_model.to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(student.parameters(), lr=args.lr, weight_decay=0.01)
    total = args.epochs * len(loader)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.06 * total), total)

    distiller = Distiller(student, teacher, optimizer, scheduler, device, args.temperature, args.alpha)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        distiller.train_epoch(loader, epoch)

    if dist.get_rank() == 0:
        student.module.save_pretrained("checkpoints/distilroberta-mnli")
        tokenizer.save_pretrained("checkpoints/distilroberta-mnli")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
