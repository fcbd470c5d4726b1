import torch.nn.functional as F

from tinylm import dist_utils


class LoopMixin:
    def run(self) -> None:
        self.engine.train()
        for epoch in range(self.cfg["epochs"]):
            self.loader.sampler.set_epoch(epoch)
            for step, (inputs, targets) in enumerate(self.loader):
                inputs = inputs.to(self.engine.device, non_blocking=True)
                targets = targets.to(self.engine.device, non_blocking=True)
                logits = self.engine(input_ids=inputs).logits
                loss = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())
                self.engine.backward(loss)
                self.engine.step()
                if step % self.cfg["log_every"] == 0 and dist_utils.rank() == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        self.engine.save_checkpoint(self.cfg["output_dir"], tag="final")
