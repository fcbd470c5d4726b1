"""Shared fixtures: build small projects in a temporary folder and run dslint on them."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from dslint import engine
from dslint.settings import Settings

SHARED = Path(__file__).resolve().parents[2] / "shared"


class Project:
    """A throwaway project folder; check() and fix() run the real engine on it."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, files: dict) -> "Project":
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text)
        return self

    def read(self, name: str) -> str:
        return (self.root / name).read_text()

    def check(self, *, select=None, **settings):
        old = os.getcwd()
        os.chdir(self.root)
        try:
            options = {"select": select} if select else {}
            result = engine.check(["."], Settings.model_validate({**options, **settings}), root=self.root, use_cache=False)
        finally:
            os.chdir(old)
        return result

    def codes(self, **kwargs) -> list[str]:
        return [f.code for f in self.check(**kwargs).findings]

    def fix(self, *, unsafe=True, select=None, **settings):
        old = os.getcwd()
        os.chdir(self.root)
        try:
            options = {"select": select} if select else {}
            return engine.fix(["."], Settings.model_validate({**options, **settings}), unsafe=unsafe, root=self.root)
        finally:
            os.chdir(old)


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def make_project(tmp_path):
    """Several independent projects in one test: make_project("fix") is a fresh sibling folder."""

    def make(name: str) -> Project:
        root = tmp_path / name
        root.mkdir()
        return Project(root)

    return make


def shared_or_skip(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not here (it ships with the team's shared folder, not with dslint)")
    return path
