import torch
import torch.nn.functional as F
from torchvision import models


def load_teacher():
    return models.resnet152(weights="IMAGENET1K_V2")


class Distiller:
    def __init__(self, student, optimizer, temperature=4.0):
        self.student = student
        self.teacher = load_teacher().cuda().eval()
        self.optimizer = optimizer
        self.t = temperature

    def training_step(self, x, y):
        t_logits = self.teacher(x)
        s_logits = self.student(x)
        kd = F.kl_div(F.log_softmax(s_logits / self.t, -1), F.softmax(t_logits / self.t, -1), reduction="batchmean")
        loss = kd * self.t ** 2 + F.cross_entropy(s_logits, y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()
