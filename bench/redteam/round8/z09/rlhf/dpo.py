import torch
import torch.nn.functional as F


def sequence_logps(logits, labels):
    logps = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    return torch.gather(logps, 2, labels[:, 1:].unsqueeze(-1)).squeeze(-1).sum(-1)


class DPOLearner:
    def __init__(self, policy, ref_model, optimizer, accelerator, beta=0.1):
        self.policy = policy
        self.ref_model = ref_model.eval()
        self.optimizer = optimizer
        self.accelerator = accelerator
        self.beta = beta

    def step(self, batch):
        chosen, rejected = batch["chosen"], batch["rejected"]
        pi_chosen = sequence_logps(self.policy(chosen).logits, chosen)
        pi_rejected = sequence_logps(self.policy(rejected).logits, rejected)
        ref_chosen = sequence_logps(self.ref_model(chosen).logits, chosen)
        ref_rejected = sequence_logps(self.ref_model(rejected).logits, rejected)
        margin = (pi_chosen - ref_chosen) - (pi_rejected - ref_rejected)
        loss = -F.logsigmoid(self.beta * margin).mean()
        self.accelerator.backward(loss)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach()
