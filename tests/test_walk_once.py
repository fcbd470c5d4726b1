"""A folder given to `dslint check` is walked once per run: the settings plan's walk is the engine's."""
import shutil
from pathlib import Path

import pytest

from dslint import cli
from dslint.sources import discover as discover_module

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_folder_is_walked_once_and_gives_the_same_findings(tmp_path, monkeypatch, capsys):
    shutil.copytree(EXAMPLES / "ddp_same_gpu", tmp_path / "proj")
    monkeypatch.chdir(tmp_path)
    real = discover_module.discover
    calls = []

    def counting(paths, *args, **kwargs):
        calls.append(list(paths))
        return real(paths, *args, **kwargs)

    monkeypatch.setattr(discover_module, "discover", counting)
    import dslint.engine.pipeline as pipeline
    monkeypatch.setattr(pipeline, "discover", counting)
    with pytest.raises(SystemExit) as once:
        cli.main(["check", "--no-cache", "-o", "concise", "proj"])
    walked = capsys.readouterr().out
    assert once.value.code == 1 and "DSL101" in walked
    assert calls == [["proj"]]  # the plan walked it; the engine took those files

    calls.clear()
    with pytest.raises(SystemExit):
        cli.main(["check", "--no-cache", "-o", "concise", "proj/train.py", "proj"])
    assert capsys.readouterr().out.count("DSL101") == walked.count("DSL101")  # overlapping paths: each file once
