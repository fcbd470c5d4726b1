import torch


@torch.no_grad()
def run_eval(accelerator, model, loader):
    model.eval()
    preds, labels = [], []
    for x, y in loader:
        logits = model(x)
        preds.append(logits.argmax(-1))
        labels.append(y)
    preds = torch.cat(preds)
    labels = torch.cat(labels)
    if accelerator.is_local_main_process:
        preds, labels = accelerator.gather_for_metrics((preds, labels))
        acc = (preds == labels).float().mean().item()
        accelerator.print(f"acc={acc:.4f}")
    model.train()
