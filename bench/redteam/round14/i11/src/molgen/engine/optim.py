from deepspeed.ops.adam import DeepSpeedCPUAdam


class OptimizerMixin:
    def build_optimizer(self, model):
        decay, no_decay = [], []
        for name, param in model.named_parameters():
            (no_decay if param.ndim < 2 or "ln" in name else decay).append(param)
        groups = [
            {"params": decay, "weight_decay": self.cfg["weight_decay"]},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        return DeepSpeedCPUAdam(groups, lr=self.cfg["lr"], betas=(0.9, 0.95), adamw_mode=True)
