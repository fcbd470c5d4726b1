import torch
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher, optimizer, temperature=2.0):
        self.student = student
        self.teacher = teacher.eval()
        self.opt = optimizer
        self.t = temperature

    def step(self, x, y):
        s_logits = self.student(x)
        t_logits = self.teacher(x)
        kd = F.kl_div(F.log_softmax(s_logits / self.t, -1), F.softmax(t_logits / self.t, -1), reduction="batchmean")
        loss = F.cross_entropy(s_logits, y) + kd * self.t ** 2
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()
