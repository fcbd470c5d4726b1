import time

from lmtune import dist_utils


class LoggingMixin:
    def log_step(self, epoch: int, step: int, loss) -> None:
        avg = dist_utils.mean_across_ranks(loss)
        if dist_utils.is_main():
            elapsed = time.time() - self._t0
            lr = self.scheduler.get_last_lr()[0]
            print(f"epoch {epoch} step {step} loss {avg.item():.4f} lr {lr:.2e} ({elapsed:.0f}s)")
