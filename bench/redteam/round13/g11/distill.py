import argparse

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from transformers import AutoTokenizer, get_linear_schedule_with_warmup

from data.sst2 import build_loaders
from models.loading import load_student, load_teacher, same_vocabulary


def kd_loss(student_logits, teacher_logits, labels, temperature=4.0, alpha=0.9):
    soft = F.kl_div(F.log_softmax(student_logits / temperature, -1), F.softmax(teacher_logits.float() / temperature, -1),
                    reduction="batchmean") * temperature ** 2
    return alpha * soft + (1 - alpha) * F.cross_entropy(student_logits, labels)


@torch.no_grad()
def evaluate(model, loader, accelerator):
    model.eval()
    correct = total = 0
    for batch in loader:
        preds = model(**batch).logits.argmax(-1)
        preds, labels = accelerator.gather_for_metrics((preds, batch["labels"]))
        correct += (preds == labels).sum().item()
        total += labels.numel()
    model.train()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--teacher", required=True)
    parser.add_argument("--student", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--output-dir", default="checkpoints/bert-mini-sst2")
    args = parser.parse_args()

    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(args.student)
    train_loader, val_loader = build_loaders(tokenizer, args.batch_size, accelerator)

    teacher = load_teacher(args.teacher).to(accelerator.device)
    student = load_student(args.student)
    if not same_vocabulary(teacher.config, student.config):
        raise SystemExit("teacher and student tokenizers differ")
    optimizer = torch.optim.AdamW(student.parameters(), lr=args.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, 200, args.epochs * len(train_loader))
    student, optimizer, train_loader, val_loader, scheduler = accelerator.prepare(
        student, optimizer, train_loader, val_loader, scheduler)

    for epoch in range(args.epochs):
        student.train()
        for batch in train_loader:
            labels = batch.pop("labels")
            teacher_logits = teacher(**batch).logits
            student_logits = student(**batch).logits
            loss = kd_loss(student_logits, teacher_logits, labels)
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        acc = evaluate(student, val_loader, accelerator)
        accelerator.print(f"epoch {epoch}: val acc {acc:.4f}")

    accelerator.wait_for_everyone()
    accelerator.unwrap_model(student).save_pretrained(args.output_dir, is_main_process=accelerator.is_main_process,
                                                      save_function=accelerator.save)
    if accelerator.is_main_process:
        tokenizer.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
