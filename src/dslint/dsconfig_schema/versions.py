"""Which DeepSpeed version a config is checked against.

The installed version is read from package metadata only: dslint's check path never imports
deepspeed or torch.
"""

from __future__ import annotations

import importlib.util
import re

SUPPORTED_VERSIONS: tuple[str, ...] = ("0.19.6", "0.19.8")
DEFAULT_VERSION: str = SUPPORTED_VERSIONS[-1]


def _release(version: str) -> tuple[int, ...]:
    match = re.match(r"(\d+(?:\.\d+)*)", version.strip())
    if not match:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(part) for part in match.group(1).split("."))


def detect_deepspeed_version() -> str | None:
    """The installed deepspeed's version ("0.19.8"), from package metadata; None if not installed."""
    if importlib.util.find_spec("deepspeed") is None:  # (not installed: no scan of every distribution)
        return None
    from importlib import metadata

    try:
        return metadata.version("deepspeed")
    except metadata.PackageNotFoundError:
        return None


def resolve_version(version: str | None = None) -> str:
    """The supported schema version to check against.

    None means "the newest supported". A version between two supported ones maps to the newest
    supported release not newer than it (0.19.7 -> 0.19.6); one older than all supported maps to
    the oldest, one newer than all to the newest. Local suffixes ("0.19.6+unknown") are ignored.
    """
    if version is None:
        return DEFAULT_VERSION
    wanted = _release(version)
    chosen = SUPPORTED_VERSIONS[0]
    for candidate in SUPPORTED_VERSIONS:
        if _release(candidate) <= wanted:
            chosen = candidate
    return chosen


def is_supported(version: str) -> bool:
    """True when version (suffixes ignored) is exactly one of SUPPORTED_VERSIONS."""
    return _release(version) in {_release(v) for v in SUPPORTED_VERSIONS}
