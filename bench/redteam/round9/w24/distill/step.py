import torch.nn.functional as F

from distill.grad import frozen


class DistillStep:
    def __init__(self, student, teacher, optimizer, temperature=2.0, alpha=0.7):
        self.student = student
        self.teacher = teacher.eval()
        self.optimizer = optimizer
        self.t = temperature
        self.alpha = alpha

    def __call__(self, images, labels):
        with frozen():
            teacher_logits = self.teacher(images)
        student_logits = self.student(images)
        kd = F.kl_div(F.log_softmax(student_logits / self.t, -1), F.softmax(teacher_logits / self.t, -1),
                      reduction="batchmean") * self.t ** 2
        loss = self.alpha * kd + (1 - self.alpha) * F.cross_entropy(student_logits, labels)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach()
