import copy
import torch
import torch.nn.functional as F
from transformers import Trainer


class SimpleDPOTrainer(Trainer):
    def __init__(self, *args, beta=0.1, **kwargs):
        super().__init__(*args, **kwargs)
        self.beta = beta
        self.ref_model = copy.deepcopy(self.model).eval()
        self.ref_model.to(self.args.device)

    def _logps(self, model, ids, mask):
        logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1]
        return torch.gather(logits.log_softmax(-1), 2, ids[:, 1:, None]).squeeze(-1).sum(-1)

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        pi_c = self._logps(model, inputs["chosen_ids"], inputs["chosen_mask"])
        pi_r = self._logps(model, inputs["rejected_ids"], inputs["rejected_mask"])
        ref_c = self._logps(self.ref_model, inputs["chosen_ids"], inputs["chosen_mask"])
        ref_r = self._logps(self.ref_model, inputs["rejected_ids"], inputs["rejected_mask"])
        loss = -F.logsigmoid(self.beta * ((pi_c - ref_c) - (pi_r - ref_r))).mean()
        return (loss, {}) if return_outputs else loss
