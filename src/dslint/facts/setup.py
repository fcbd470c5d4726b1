"""The training setup as a whole: every file of one check, for the rules that link them."""
from __future__ import annotations

import hashlib
import os
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
    modules: dict[str, Any] = field(default_factory=dict)  # display path -> ModuleExports (every parsed module)
    # Files the project phase read besides the checked ones (a launch's YAML, requirements.txt),
    # with a digest of each: the cached project-phase findings hold only while they are unchanged.
    inputs: dict[str, str] = field(default_factory=dict)
    # The folders named on the command line, resolved -> as given: a launch file under one of them
    # and not under `root` (`dslint check ../other/project`) is run from a folder up to that one.
    checked: dict = field(default_factory=dict)
    _program: Any = None

    def note_input(self, path: str) -> None:
        """Record a file (or a file that may appear) the project phase reads."""
        self.inputs.setdefault(str(path), input_digest(str(path)))

    @property
    def program(self):
        """The modules linked into programs (`facts.program.ProgramIndex`), built on first use."""
        if self._program is None:
            from .program import ProgramIndex

            self._program = ProgramIndex(self.modules, self.launched_scripts())
        return self._program

    def newest_allowed(self, framework: str):
        """The newest release of a framework the project's dependency files allow (None: any)."""
        cache = self.__dict__.setdefault("_versions", {})
        if framework not in cache:
            from .dependencies import newest_allowed

            cache[framework] = newest_allowed(Path(self.root), framework, self.note_input)
        return cache[framework]

    def launched_scripts(self) -> set:
        """Scripts that a launch file of the project starts."""
        from .link import launched_script_paths

        return launched_script_paths(self)


def input_digest(path: str) -> str:
    """The content digest of a file the project phase reads ("absent" when there is none); of a
    folder, the digest of its listing (a dependency file added or removed)."""
    if os.path.isdir(path):
        try:
            return hashlib.blake2b("\0".join(sorted(os.listdir(path))).encode(), digest_size=16).hexdigest()
        except OSError:
            return "absent"
    from ..sources.files import read_regular

    try:
        return hashlib.blake2b(read_regular(path), digest_size=16).hexdigest()  # (never blocks on a FIFO)
    except OSError:
        return "absent"
