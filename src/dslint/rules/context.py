"""What a rule receives: the facts of its file (or of the setup) and the settings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..facts.distributed import DistributedFacts, distributed_facts
from ..facts.script import ScriptFacts
from ..sources.dsconfig import JsonDoc

if TYPE_CHECKING:
    from ..facts.setup import Project
    from ..settings import Settings


@dataclass
class PythonContext:
    facts: ScriptFacts
    settings: "Settings"

    @property
    def dist(self) -> DistributedFacts:
        return distributed_facts(self.facts)

    @property
    def path(self) -> str:
        return self.facts.path


@dataclass
class ConfigContext:
    doc: JsonDoc
    settings: "Settings"
    # The setup that uses this config, when dslint linked one (world size, HF Trainer...).
    project: Optional["Project"] = None

    @property
    def path(self) -> str:
        return self.doc.path


@dataclass
class LaunchContext:
    path: str
    text: str
    launch: Any  # sources.launch.LaunchFile
    settings: "Settings"


@dataclass
class SetupContext:
    project: "Project"
    settings: "Settings"
