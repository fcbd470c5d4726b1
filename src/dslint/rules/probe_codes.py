"""DSL9xx: the runtime probe's codes, declared here so that `dslint rules` and `dslint explain`
know them without importing the probe (which `check` never does)."""
from __future__ import annotations

from ..model import Severity
from .registry import declare

PROBE_CODES: dict[str, tuple[str, str, Severity]] = {
    "DSL901": ("several-worlds-on-gpu", "Processes of several training worlds (or jobs) compute on one GPU.", Severity.ERROR),
    "DSL902": ("ranks-share-gpu-runtime", "Two ranks of one world compute on the same GPU.", Severity.ERROR),
    "DSL903": ("cpu-optimizer-oversubscribed", "Ranks running a CPU optimizer share cores with more compute threads than cores.", Severity.WARNING),
    "DSL904": ("cpu-optimizer-starved", "Ranks running a CPU optimizer are limited to one thread while cores sit idle.", Severity.WARNING),
    "DSL905": ("stray-cuda-context", "A rank holds a CUDA context on a GPU other than its own.", Severity.INFO),
    "DSL906": ("collective-below-link", "NCCL all-reduce bandwidth is far below what the GPUs' link allows.", Severity.WARNING),
}

for _code, (_name, _summary, _severity) in PROBE_CODES.items():
    declare(_code, _name, kind="probe", severity=_severity)
