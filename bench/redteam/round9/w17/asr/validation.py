import torch
import torch.distributed as dist
import torch.nn.functional as F

from asr.utils import ctc_greedy, no_autograd


class WerValidation:
    def __init__(self, dev_loader, every_epochs=1):
        self.dev_loader = dev_loader
        self.every_epochs = every_epochs

    @no_autograd
    def on_epoch_end(self, trainer, epoch):
        if epoch % self.every_epochs:
            return None
        model = trainer.model
        model.eval()
        errors = torch.zeros(2, device=trainer.device)
        loss_sum = torch.zeros((), device=trainer.device)
        for feats, feat_lens, targets, target_lens in self.dev_loader:
            feats = feats.to(trainer.device)
            log_probs = model(feats).log_softmax(-1)
            loss_sum += F.ctc_loss(log_probs.transpose(0, 1), targets, feat_lens, target_lens, reduction="sum")
            for hyp, ref, n in zip(ctc_greedy(log_probs), targets.tolist(), target_lens.tolist()):
                ref = ref[:n]
                errors[0] += sum(a != b for a, b in zip(hyp, ref)) + abs(len(hyp) - len(ref))
                errors[1] += len(ref)
        dist.all_reduce(errors)
        dist.all_reduce(loss_sum)
        return (errors[0] / errors[1]).item()
