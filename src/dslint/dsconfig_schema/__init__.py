"""The DeepSpeed config schema: every key, type, default and allowed value, per DeepSpeed version.

Public API (stable; the DSL6xx rules build on it):

- validate_config(data, *, version=None, hf_auto=False) -> list[ConfigProblem]
- effective_config(data, *, version=None) -> EffectiveConfig
- detect_deepspeed_version() -> str | None, resolve_version(version) -> str,
  SUPPORTED_VERSIONS, DEFAULT_VERSION
- ConfigProblem and the problem kinds (UNKNOWN_KEY, ... ; KINDS lists them all)

Nothing here imports deepspeed or torch.
"""

from importlib import import_module

# Loaded on first use: a check with no DeepSpeed config never reads the schema tables.
_HOME = {
    **dict.fromkeys(("EffectiveConfig", "effective_config"), "effective"),
    **dict.fromkeys(("AUTO_NOT_FILLED", "BAD_TYPE", "BAD_VALUE", "DEPRECATED_KEY", "KINDS", "MISPLACED_KEY",
                     "REMOVED_KEY", "UNKNOWN_KEY", "ConfigProblem"), "problems"),
    "validate_config": "validate",
    **dict.fromkeys(("DEFAULT_VERSION", "SUPPORTED_VERSIONS", "detect_deepspeed_version", "is_supported",
                     "resolve_version"), "versions"),
}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AUTO_NOT_FILLED",
    "BAD_TYPE",
    "BAD_VALUE",
    "DEFAULT_VERSION",
    "DEPRECATED_KEY",
    "KINDS",
    "MISPLACED_KEY",
    "REMOVED_KEY",
    "SUPPORTED_VERSIONS",
    "UNKNOWN_KEY",
    "ConfigProblem",
    "EffectiveConfig",
    "detect_deepspeed_version",
    "effective_config",
    "is_supported",
    "resolve_version",
    "validate_config",
]
