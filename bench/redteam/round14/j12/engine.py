import torch
import torch.nn.functional as F


def train_one_epoch(accelerator, model, loader, optimizer, lr_scheduler, epoch, args):
    model.train()
    running = 0.0
    for step, (images, labels) in enumerate(loader):
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(images), labels, label_smoothing=args.label_smoothing)
            accelerator.backward(loss)
            if accelerator.sync_gradients and args.max_grad_norm > 0:
                accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        running += loss.detach()
        if (step + 1) % args.log_every == 0:
            avg = accelerator.gather(running).mean().item() / args.log_every
            accelerator.print(f"epoch {epoch} step {step + 1}/{len(loader)} loss {avg:.4f}")
            accelerator.log({"train_loss": avg, "lr": lr_scheduler.get_last_lr()[0]})
            running = 0.0


@torch.no_grad()
def evaluate(accelerator, model, loader):
    model.eval()
    correct, total = 0, 0
    for images, labels in loader:
        preds = model(images).argmax(dim=-1)
        preds, labels = accelerator.gather_for_metrics((preds, labels))
        correct += (preds == labels).sum().item()
        total += labels.numel()
    return 100.0 * correct / total
