import torch
import torch.nn.functional as F


def sequence_logps(logits, labels, mask):
    logps = torch.gather(logits.float().log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)
    return (logps * mask).sum(-1)


class DPOTrainer:
    """Direct preference optimisation against a fixed reference copy of the SFT model."""

    def __init__(self, policy, reference, optimizer, beta=0.1, max_grad_norm=1.0):
        self.policy = policy
        self.reference = reference
        self.optimizer = optimizer
        self.beta = beta
        self.max_grad_norm = max_grad_norm
        self.policy.train()

    def train_step(self, batch):
        ids, attention, mask = batch["input_ids"], batch["attention_mask"], batch["loss_mask"]
        policy_logits = self.policy(input_ids=ids, attention_mask=attention).logits[:, :-1]
        reference_logits = self.reference(input_ids=ids, attention_mask=attention).logits[:, :-1]
        policy_logps = sequence_logps(policy_logits, ids[:, 1:], mask[:, 1:])
        reference_logps = sequence_logps(reference_logits, ids[:, 1:], mask[:, 1:])

        pi_chosen, pi_rejected = policy_logps.chunk(2)
        ref_chosen, ref_rejected = reference_logps.chunk(2)
        margin = (pi_chosen - ref_chosen) - (pi_rejected - ref_rejected)
        loss = -F.logsigmoid(self.beta * margin).mean()

        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
        self.optimizer.step()
        return loss.detach(), margin.detach().mean()
