"""The training setup as a whole: every file of one check, for the rules that link them."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..sources.dsconfig import JsonDoc
from .summary import ScriptSummary


@dataclass
class Project:
    root: Path
    scripts: dict[str, ScriptSummary] = field(default_factory=dict)  # display path -> summary
    configs: dict[str, JsonDoc] = field(default_factory=dict)  # display path -> parsed config
    launches: dict[str, Any] = field(default_factory=dict)  # display path -> sources.launch.LaunchFile
    texts: dict[str, str] = field(default_factory=dict)  # display path -> text (for launch/config files)
