"""Distillation whose teacher and whose evaluation both record autograd graphs."""
import torch
import torch.nn.functional as F


def evaluate(student, loader):
    student.eval()
    total = 0.0
    for x, y in loader:
        total = total + F.cross_entropy(student(x), y)  # keeps every batch's graph alive
    student.train()
    return total / len(loader)


def train(student, teacher, loader, val_loader, epochs=3):
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-4)
    teacher.eval()
    for epoch in range(epochs):
        for x, y in loader:
            logits = student(x)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                soft = teacher(x).softmax(-1)  # graph and parameter gradients for a frozen model
            loss = F.cross_entropy(logits, y) + F.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, evaluate(student, val_loader))
