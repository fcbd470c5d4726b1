"""The run-level fast path (engine/pipeline.py warm_results): a warm run whose file rows and setup
row all hit loads only the rows' small parts and skips the project phase, with the output of a
cold run; any miss, or a caller that reads the project, takes the normal path."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dslint import engine
from dslint.engine import cache, pipeline
from dslint.settings import Settings
from tests.test_dependencies import SAVE_ON_RANK_ZERO

TRAIN = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
a = torch.load("a.pt")  # noqa: DSL101
b = 1  # noqa: DSL102
"""
CONFIG = '{"train_batch_size": 8, "zero_optimization": {"stage": 2, "overlap_com": true}}\n'
# tasks/main.py has no framework words: the project phase checks it as a script because run.sh launches it
LAUNCH = ("deepspeed --num_gpus 2 train.py --deepspeed --deepspeed_config ds_config.json\n"
          "deepspeed --num_gpus 2 tasks/main.py --deepspeed --deepspeed_config ds_config.json\n")
TASK = "from helpers import build\n\nbuild()\n"
LIGHTNING = SAVE_ON_RANK_ZERO  # DSL502 decided on the pinned Lightning version (tests/test_dependencies.py)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "ds_config.json").write_text(CONFIG)
    (tmp_path / "run.sh").write_text(LAUNCH)
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "main.py").write_text(TASK)
    (tmp_path / "tasks" / "helpers.py").write_text("def build():\n    return 1\n")
    (tmp_path / "fit.py").write_text(LIGHTNING)
    return tmp_path


@pytest.fixture
def normal_runs(monkeypatch):
    """How many runs took the normal path (checked the files or read them from the cache whole)."""
    runs = []
    original = pipeline.check_files

    def counting(*args, **kwargs):
        runs.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(pipeline, "check_files", counting)
    return runs


def run(folder: Path, **options):
    options.setdefault("with_project", False)
    old = os.getcwd()
    os.chdir(folder)
    try:
        return engine.check(["."], Settings(), root=folder, jobs=1, **options)
    finally:
        os.chdir(old)


def outcome(result):
    return ([(f.path, f.code, f.span.start.row, f.span.start.column, f.message, f.fix is not None) for f in result.findings],
            result.files, result.errors)


def test_a_warm_run_skips_the_project_phase_with_the_cold_output(tree, normal_runs):
    cold = outcome(run(tree, use_cache=False))
    assert outcome(run(tree)) == cold  # writes the rows
    # (the root's listing is a project input, and .dslint_cache/ appeared in it: the setup row misses once)
    assert outcome(run(tree)) == cold
    assert normal_runs == [1, 1, 1]
    warm = run(tree)
    assert normal_runs == [1, 1, 1]  # the fast path: no file loaded whole
    assert outcome(warm) == cold and warm.project is None
    # the launched plain script counts as a checked file only after the project phase upgraded it, and
    # so does the plain module it imports (tasks/helpers.py)
    assert cold[1] == 6
    assert {"DSL004"} <= {code for _, code, *_ in cold[0]}  # the unused noqa on train.py, decided per file


def test_an_edited_file_misses_and_takes_the_normal_path(tree, normal_runs):
    run(tree)
    (tree / "train.py").write_text(TRAIN.replace("  # noqa: DSL102", ""))
    normal_runs.clear()
    warm = outcome(run(tree))
    assert normal_runs == [1]
    assert warm == outcome(run(tree, use_cache=False))
    assert not any(code == "DSL004" and path.endswith("train.py") and row == 5 for path, code, row, *_ in warm[0])


def test_a_project_input_edited_misses_the_setup_row(tree, normal_runs):
    run(tree)
    before = outcome(run(tree))
    assert "DSL502" in {code for _, code, *_ in before[0]}
    (tree / "requirements.txt").write_text("pytorch-lightning==1.4.2\n")  # read by the project phase only
    normal_runs.clear()
    after = outcome(run(tree))
    assert normal_runs == [1]
    assert "DSL502" not in {code for _, code, *_ in after[0]}
    assert after == outcome(run(tree, use_cache=False))
    normal_runs.clear()
    assert outcome(run(tree)) == after and normal_runs == []  # warm again on the new inputs


def test_a_caller_that_reads_the_project_gets_it(tree, normal_runs):
    run(tree)
    run(tree)
    normal_runs.clear()
    result = run(tree, with_project=True)
    assert normal_runs == [1] and result.project is not None and result.project.launches


def test_fix_edits_wanted_but_not_cached_take_the_normal_path(tree, normal_runs):
    run(tree)
    run(tree)
    normal_runs.clear()
    warm = outcome(run(tree, edits=True))
    assert normal_runs == [1]  # the rows were cached without the fixes' edits
    assert any(f[5] for f in warm[0]) and warm == outcome(run(tree, use_cache=False, edits=True))


def test_a_row_without_its_small_part_is_a_miss(tree, normal_runs):
    import sqlite3

    run(tree)
    run(tree)
    with sqlite3.connect(tree / ".dslint_cache" / cache.DB_NAME) as db:
        db.execute("UPDATE entries SET small = x'00' WHERE file LIKE '%train.py'")
    normal_runs.clear()
    warm = outcome(run(tree))
    assert normal_runs == [1]
    assert warm == outcome(run(tree, use_cache=False))
    normal_runs.clear()
    assert outcome(run(tree)) == warm and normal_runs == []  # the normal path wrote the row again


@pytest.mark.parametrize("example", ["examples"])
def test_cli_json_warm_equals_no_cache(tmp_path, example):
    source = Path(__file__).resolve().parent.parent / example
    if not source.is_dir():
        pytest.skip(f"{source} is not here")
    copy = tmp_path / "tree"
    shutil.copytree(source, copy)

    def cli(*extra):
        proc = subprocess.run([sys.executable, "-m", "dslint", "check", ".", "-o", "json", *extra],
                              cwd=copy, capture_output=True, text=True)
        assert "Traceback" not in proc.stderr
        return json.loads(proc.stdout)

    cold = cli("--no-cache")
    assert cold  # the examples have findings
    assert cli() == cold
    assert cli() == cold  # the fast path
    assert (copy / ".dslint_cache").is_dir()


def test_a_plain_module_a_framework_module_imports_stays_warm(tree, normal_runs):
    """Its full check is cached beside its plain row (engine/project.py): neither row may drop the other."""
    (tree / "train.py").write_text(TRAIN + "from export import write\n")
    (tree / "export.py").write_text("import json\n\n\ndef write(x):\n    json.dump(x, open('m.json', 'w'))\n")
    cold = outcome(run(tree, use_cache=False))
    for _ in range(3):
        assert outcome(run(tree)) == cold
    before = len(normal_runs)
    assert outcome(run(tree)) == cold
    assert len(normal_runs) == before  # the fast path
