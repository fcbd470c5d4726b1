import json
import os
from collections import defaultdict

from utils.dist import rank_zero_only


class HookRegistry:
    def __init__(self):
        self._hooks = defaultdict(list)

    def register(self, event, fn):
        self._hooks[event].append(fn)
        return fn

    def fire(self, event, **state):
        for fn in self._hooks[event]:
            fn(**state)


@rank_zero_only
def log_train_stats(epoch, step, loss, lr, **_):
    if step % 50 == 0:
        print(f"[epoch {epoch} step {step}] loss={loss:.4f} lr={lr:.2e}")


@rank_zero_only
def report_validation(epoch, model, evaluator, out_dir, eval_every, **_):
    if (epoch + 1) % eval_every != 0:
        return
    metrics = evaluator.evaluate(model)
    print(f"epoch {epoch}: " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "metrics.jsonl"), "a") as f:
        f.write(json.dumps({"epoch": epoch, **metrics}) + "\n")
