"""How a finding's one-line message names what the user wrote: cut to a length, a short file label."""
from __future__ import annotations


def short(text: object, limit: int = 40) -> str:
    """A variable part of a message (a condition, a key, a value) cut to `limit` characters, so
    that a message stays one terminal line however long the user's code is."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def file_label(path: object, limit: int = 28) -> str:
    """A file named in a message: its path when that is short (`utils/dist.py`), else its base name."""
    text = str(path).replace("\\", "/").rstrip("/")
    text = text[2:] if text.startswith("./") else text
    return text if len(text) <= limit else short(text.rsplit("/", 1)[-1], limit)
