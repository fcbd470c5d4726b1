import math

import torch
import tyro
from accelerate import Accelerator
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_cosine_schedule_with_warmup

from config import TrainConfig
from data import build_dataloaders


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
    return correct / max(total, 1)


def main(cfg: TrainConfig) -> None:
    accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum)
    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model_name, num_labels=cfg.num_labels)
    train_loader, val_loader = build_dataloaders(cfg, tokenizer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    total_steps = cfg.epochs * math.ceil(len(train_loader) / cfg.grad_accum)
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(cfg.warmup_ratio * total_steps), total_steps)
    model, optimizer, train_loader, val_loader, scheduler = accelerator.prepare(
        model, optimizer, train_loader, val_loader, scheduler)

    model.train()
    for epoch in range(cfg.epochs):
        train_loader.set_epoch(epoch)
        for batch in train_loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        accuracy = evaluate(model, val_loader, accelerator)
        accelerator.print(f"epoch {epoch}: matched accuracy {accuracy:.4f}")

    accelerator.wait_for_everyone()
    accelerator.unwrap_model(model).save_pretrained(
        cfg.output_dir, is_main_process=accelerator.is_main_process, save_function=accelerator.save)
    if accelerator.is_main_process:
        tokenizer.save_pretrained(cfg.output_dir)


if __name__ == "__main__":
    main(tyro.cli(TrainConfig))
