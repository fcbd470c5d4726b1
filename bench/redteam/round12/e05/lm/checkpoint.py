"""Checkpoints on local disk or object storage (s3://, gs://) through fsspec."""
import posixpath

import fsspec
import torch


class CheckpointManager:
    def __init__(self, root, keep_last=3):
        self.root = root.rstrip("/")
        self.keep_last = keep_last
        self.fs, self.base = fsspec.core.url_to_fs(self.root)

    def _uri(self, step):
        return f"{self.root}/ckpt_{step:07d}.pt"

    def save(self, state, step):
        self.fs.makedirs(self.base, exist_ok=True)
        with fsspec.open(self._uri(step), "wb") as f:
            torch.save(state, f)
        old = sorted(self.fs.glob(posixpath.join(self.base, "ckpt_*.pt")))[:-self.keep_last]
        for path in old:
            self.fs.rm(path)

    def latest(self):
        found = sorted(self.fs.glob(posixpath.join(self.base, "ckpt_*.pt")))
        if not found:
            return None
        return self.fs.unstrip_protocol(found[-1])

    def load(self, uri):
        with fsspec.open(uri, "rb") as f:
            return torch.load(f, weights_only=False)
