import os
from pathlib import Path

import torch


class Checkpointer:
    def __init__(self, root: str, model, optimizer):
        self.root = Path(root)
        self.model = model
        self.optimizer = optimizer

    def save(self, step: int):
        self.root.mkdir(parents=True, exist_ok=True)
        torch.save({"model": self.model.module.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "step": step}, self.root / "last.pt")

    def resume(self) -> int:
        path = self.root / "last.pt"
        if not path.exists():
            return 0
        state = torch.load(path)
        self.model.module.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        return state["step"]

    def exists(self) -> bool:
        return os.path.exists(self.root / "last.pt")
