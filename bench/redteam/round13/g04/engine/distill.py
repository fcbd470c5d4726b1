import torch
import torch.distributed as dist
import torch.nn.functional as F


class Distiller:
    """Hinton-style distillation: KL to the teacher's softened logits plus hard-label CE."""

    def __init__(self, student, teacher, optimizer, scheduler, device, temperature=2.0, alpha=0.7):
        self.student = student
        self.teacher = teacher
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.T = temperature
        self.alpha = alpha

    def _loss(self, student_logits, teacher_logits, labels):
        soft = F.kl_div(F.log_softmax(student_logits / self.T, dim=-1),
                        F.softmax(teacher_logits.float() / self.T, dim=-1),
                        reduction="batchmean") * self.T ** 2
        hard = F.cross_entropy(student_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard

    def training_step(self, batch):
        batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
        labels = batch.pop("labels")
        teacher_logits = self.teacher(**batch).logits
        student_logits = self.student(**batch).logits
        loss = self._loss(student_logits, teacher_logits, labels)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.student.parameters(), 1.0)
        self.optimizer.step()
        self.scheduler.step()
        return loss.detach()

    def train_epoch(self, loader, epoch):
        self.student.train()
        for step, batch in enumerate(loader):
            loss = self.training_step(batch)
            if step % 100 == 0 and dist.get_rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
