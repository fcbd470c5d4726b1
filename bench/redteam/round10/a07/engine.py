import torch
import torch.distributed as dist
import torch.nn.functional as F

from utils.torch_utils import evaluation


def distillation_loss(student_logits, teacher_logits, labels, alpha, tau):
    soft = F.kl_div(F.log_softmax(student_logits / tau, -1), F.log_softmax(teacher_logits / tau, -1),
                    reduction="batchmean", log_target=True)
    return alpha * soft * tau * tau + (1 - alpha) * F.cross_entropy(student_logits, labels)


def train_one_epoch(student, teacher, loader, optimizer, device, alpha=0.7, tau=4.0):
    student.train()
    teacher.eval()
    for images, labels in loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        teacher_logits = teacher(images)
        loss = distillation_loss(student(images), teacher_logits, labels, alpha, tau)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return loss.item()


@evaluation
def evaluate(model, loader, device):
    correct = torch.zeros((), device=device)
    seen = torch.zeros((), device=device)
    for images, labels in loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        correct += (model(images).argmax(-1) == labels).sum()
        seen += labels.numel()
    dist.all_reduce(correct)
    dist.all_reduce(seen)
    return (correct / seen).item()
