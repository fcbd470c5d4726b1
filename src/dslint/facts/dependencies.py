"""Versions a project pins for the frameworks whose behaviour changed between releases.

Read from the dependency files at the project root (requirements*.txt, the `.txt` files of a
`requirements/` folder, environment*.yml/.yaml, setup.py, setup.cfg, pyproject.toml) as text: an exact pin (`pytorch-lightning==1.4.2`, conda's
`pytorch-lightning=1.4.2`) or an upper bound (`lightning<2.1`) says which releases can run. No
pin means "the newest" (as for `deepspeed-version`): rules keep their default behaviour.
`oldest_allowed` reads the lower bound (`==1.9.0`, `>=1.8`) from the dependency files nearest a
script: its own folder first, then each folder above it up to the project root (an example that
carries its own requirements.txt runs with those, not with the root's).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Optional

from ..sources.files import read_regular

_FILES = ("requirements*.txt", "requirements/*.txt", "environment*.yml", "environment*.yaml", "setup.py", "setup.cfg", "pyproject.toml")
# Distribution names of one framework, as the files spell them.
PACKAGES = {
    "lightning": ("pytorch-lightning", "pytorch_lightning", "lightning"),
    "torch": ("torch", "pytorch"),
}
_MAX_BYTES = 1_000_000


def _version(text: str) -> tuple:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def newest_allowed(root: Path, framework: str, note_input: Optional[Callable[[str], None]] = None) -> Optional[tuple]:
    """The newest release of `framework` the project's dependency files allow, as a version tuple
    ((1, 4, 2) for an exact pin; just below the bound for `<2.1`), or None when nothing limits it.
    `note_input` is told every file read (and the root folder, whose listing says which exist)."""
    if note_input is not None:
        note_input(str(root))
        note_input(str(root / "requirements"))  # (a file added there changes the answer too)
    found = [bound for spec in _specs(root, framework, note_input) for bound in _upper_bounds(spec)]
    return min(found) if found else None


def oldest_allowed(root: Path, framework: str, near: Path,
                   note_input: Optional[Callable[[str], None]] = None) -> Optional[tuple]:
    """The oldest release of `framework` the dependency files nearest `near` (a folder under
    `root`) allow, as a version tuple ((1, 9, 0) for `==1.9.0`, (1, 8) for `>=1.8`); None when
    the nearest folder that names the framework sets no lower bound, or no folder names it."""
    root, folder = root.resolve(), near.resolve()
    chain = [folder, *folder.parents] if folder == root or root in folder.parents else [folder]
    for here in chain:
        if note_input is not None:
            note_input(str(here / "requirements"))
        specs = _specs(here, framework, note_input)
        if specs:  # (each file may be the one installed: the oldest of their lower bounds)
            found = [max(_lower_bounds(spec), default=None) for spec in specs]
            return None if None in found else min(found)
        if here == root:
            break
    return None


def _specs(folder: Path, framework: str, note_input: Optional[Callable[[str], None]]) -> list[str]:
    """The version specifiers of `framework` in one folder's dependency files."""
    names = "|".join(re.escape(n) for n in PACKAGES[framework])
    requirement = re.compile(rf"(?<![\w.-])(?:{names})\s*((?:[<>=!~]=?\s*[0-9][0-9.*]*[\s,]*)+)", re.IGNORECASE)
    found: list[str] = []
    if note_input is not None:
        note_input(str(folder))  # (its listing says which files exist)
    for pattern in _FILES:
        for path in sorted(folder.glob(pattern)):
            if note_input is not None:
                note_input(str(path))
            try:
                text = read_regular(str(path), _MAX_BYTES).decode("utf-8", errors="replace")  # (never a FIFO)
            except OSError:
                continue
            found += requirement.findall(text)
    return found


def _lower_bounds(spec: str) -> list[tuple]:
    """The oldest versions each clause of a specifier allows (`<`, `<=` and `!=` allow any older one)."""
    out = []
    for op, number, star in re.findall(r"(==|<=|~=|>=|!=|=|<|>)\s*([0-9][0-9.]*)(\*?)", spec):
        version = _version(number)
        if version and op in ("==", "=", "~=", ">=", ">"):
            out.append(version)  # (`==2.*` and `>1.8` start no older than 2 and 1.8)
    return out


def _upper_bounds(spec: str) -> list[tuple]:
    """The newest versions each clause of a specifier allows (`>=` and `!=` allow any newer one)."""
    out = []
    for op, number, star in re.findall(r"(==|<=|~=|>=|!=|=|<|>)\s*([0-9][0-9.]*)(\*?)", spec):
        version = _version(number)
        if not version or op in (">=", ">", "!="):
            continue
        if star:  # `==2.*`: any 2.x
            version = version + (float("inf"),)
        if op == "<":  # just below the bound: `<2.1` allows (2, 0.5), which compares below (2, 1)
            version = version[:-1] + (version[-1] - 0.5,)
        elif op == "~=":  # `~=2.1` is `>=2.1, ==2.*`
            version = version[:-2] + (version[-2], float("inf")) if len(version) > 1 else (float("inf"),)
        out.append(version)
    return out
