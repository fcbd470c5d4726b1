import torch
import torch.nn.functional as F


class TrainLoopMixin:
    def train_epoch(self) -> float:
        total = 0.0
        for feats, labels in self.train_loader:
            feats = feats.cuda(non_blocking=True)
            labels = labels.cuda(non_blocking=True)
            loss = F.cross_entropy(self.model(feats), labels)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.inference_mode()
    def evaluate(self) -> float:
        net = self.model.module
        net.eval()
        correct = 0
        for feats, labels in self.eval_loader:
            preds = net(feats.cuda(non_blocking=True)).argmax(-1).cpu()
            correct += (preds == labels).sum().item()
        return correct / len(self.eval_loader.dataset)
