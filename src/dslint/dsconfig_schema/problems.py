"""What validate_config reports: one ConfigProblem per offending key or value."""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_KEY = "unknown-key"
MISPLACED_KEY = "misplaced-key"
REMOVED_KEY = "removed-key"
BAD_TYPE = "bad-type"
BAD_VALUE = "bad-value"
AUTO_NOT_FILLED = "auto-not-filled"
DEPRECATED_KEY = "deprecated-key"

KINDS = (UNKNOWN_KEY, MISPLACED_KEY, REMOVED_KEY, BAD_TYPE, BAD_VALUE, AUTO_NOT_FILLED, DEPRECATED_KEY)

ConfigPath = tuple[str | int, ...]


@dataclass(frozen=True)
class ConfigProblem:
    """One problem in a DeepSpeed config.

    path: JSON path to the offending key, e.g. ("zero_optimization", "offlaod_optimizer").
    kind: one of KINDS.
    message: one sentence that says what DeepSpeed will do with it (ignore it silently, raise ...).
    on: "key" or "value": which part of the pair a report should point at.
    suggestion: the key name to use instead (same level), or a dotted path when the key belongs
        elsewhere ("zero_optimization.offload_optimizer"); None when there is no good candidate.
    unambiguous: True when the suggestion is the single clear best match (safe to auto-fix).
    fatal: True when DeepSpeed's own config parsing (deepspeed.runtime.config.DeepSpeedConfig)
        raises on it; False when DeepSpeed parses the config and then silently ignores or
        defaults the value, or fails only later (the message says which).
    """

    path: ConfigPath
    kind: str
    message: str
    on: str
    suggestion: str | None = None
    unambiguous: bool = False
    fatal: bool = False

    @property
    def dotted(self) -> str:
        """The path as one string, e.g. "zero_optimization.offload_optimizer.device"."""
        return ".".join(str(p) for p in self.path)
