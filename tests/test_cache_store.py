"""The result cache (engine/cache.py): one sqlite3 row per file, read on demand, keyed without the
selection (another --select is warm), pruned, and a bad row is one miss."""
from __future__ import annotations

import dataclasses
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dslint import engine
from dslint.engine import cache, parallel
from dslint.rules.registry import RULES
from dslint.settings import Settings

TRAIN = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
a = torch.load("a.pt")
"""
CONFIG = '{"train_batch_size": 8, "zero_optimization": {"stage": 2, "overlap_com": true}}\n'
LAUNCH = "deepspeed --num_gpus 2 train.py --deepspeed --deepspeed_config ds_config.json\n"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "ds_config.json").write_text(CONFIG)
    (tmp_path / "run.sh").write_text(LAUNCH)
    (tmp_path / "util.py").write_text("def helper():\n    return 1\n")
    return tmp_path


@pytest.fixture
def counted(monkeypatch):
    """The files the per-file phase really checks (not read from the cache)."""
    checked = []
    original = parallel.check_file

    def counting(source, *args, **kwargs):
        checked.append(source.path)
        return original(source, *args, **kwargs)

    monkeypatch.setattr(parallel, "check_file", counting)
    return checked


def check(folder: Path, **settings):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return engine.check(["."], Settings(**settings), root=folder, jobs=1)
    finally:
        os.chdir(old)


def as_rows(result):
    return [(f.path, f.code, f.span.start.row, f.span.start.column, f.message) for f in result.findings]


def rows_of(folder: Path) -> list:
    with sqlite3.connect(folder / ".dslint_cache" / cache.DB_NAME) as db:
        return db.execute("SELECT key, file, data FROM entries ORDER BY key").fetchall()


def test_another_select_reads_every_file_from_the_cache(tree, counted):
    full = as_rows(check(tree))
    assert {code for _, code, *_ in full} >= {"DSL102", "DSL601"}
    assert len(counted) == 4
    counted.clear()
    for select in (["DSL1"], ["DSL6"], ["DSL102", "DSL601"]):
        narrow = as_rows(check(tree, select=select))
        assert counted == []  # no file linted again
        assert narrow == [f for f in full if any(f[1].startswith(s) for s in select)]
    assert as_rows(check(tree, ignore=["DSL1"])) == [f for f in full if not f[1].startswith("DSL1")]
    assert counted == []


def test_a_narrow_run_first_then_a_full_one_gives_the_did_you_mean(tree, counted):
    cold = as_rows(check(tree, select=["DSL1"]))
    assert [code for _, code, *_ in cold] == ["DSL102"]
    counted.clear()
    full = as_rows(check(tree))
    # DSL601's did-you-mean is computed only while DSL601 runs: the config is linted again, the others not
    assert counted == ["ds_config.json"]
    [unknown] = [f for f in full if f[1] == "DSL601"]
    assert "overlap_comm" in unknown[4]
    assert full == as_rows(check_uncached(tree))


def check_uncached(folder: Path):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return engine.check(["."], Settings(), root=folder, use_cache=False, jobs=1)
    finally:
        os.chdir(old)


def test_one_row_per_file_and_edits_replace_it(tree):
    result = check(tree)
    files = [r for r in rows_of(tree) if r[1]]
    assert sorted(Path(f).name for _, f, _ in files) == ["ds_config.json", "run.sh", "train.py", "util.py"]
    assert len([r for r in rows_of(tree) if not r[1]]) == 1  # the setup phase's row
    (tree / "train.py").write_text(TRAIN + "# edited\n")
    assert as_rows(check(tree)) == as_rows(result)
    assert len([r for r in rows_of(tree) if r[1]]) == 4  # the edited file's old row is gone


def test_a_different_fact_setting_is_a_different_row(tree, counted):
    check(tree)
    counted.clear()
    check(tree, nproc_per_node=4)
    assert len(counted) == 4  # what rules read changed: linted again
    assert Settings(select=["DSL1"], ignore=["DSL102"]).cache_fingerprint() == Settings().cache_fingerprint()
    assert Settings(nproc_per_node=4).cache_fingerprint() != Settings().cache_fingerprint()


def test_a_corrupted_row_is_one_miss(tree, counted):
    first = as_rows(check(tree))
    with sqlite3.connect(tree / ".dslint_cache" / cache.DB_NAME) as db:
        db.execute("UPDATE entries SET data = ? WHERE file LIKE '%train.py'", (b"\x80\x05garbage",))
    counted.clear()
    assert as_rows(check(tree)) == first
    assert counted == ["train.py"]
    counted.clear()
    check(tree)
    assert counted == []  # rewritten by the run that missed


def test_a_corrupt_database_is_a_cold_run_and_is_rebuilt(tree, counted):
    first = as_rows(check(tree))
    (tree / ".dslint_cache" / cache.DB_NAME).write_bytes(b"not a database at all" * 100)
    counted.clear()
    assert as_rows(check(tree)) == first
    assert len(counted) == 4
    assert len([r for r in rows_of(tree) if r[1]]) == 4


def test_pruning_drops_deleted_files_and_old_rows(tree):
    check(tree)
    (tree / "util.py").unlink()
    path = tree / ".dslint_cache" / cache.DB_NAME
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = value - 1 WHERE name = 'pruned'")  # a day later
    check(tree)
    assert sorted(Path(f).name for _, f, _ in rows_of(tree) if f) == ["ds_config.json", "run.sh", "train.py"]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET used = used - ? WHERE file LIKE '%run.sh'", (cache.MAX_AGE_DAYS + 1,))
        db.execute("UPDATE meta SET value = value - 1 WHERE name = 'pruned'")
    (tree / "other.py").write_text(TRAIN)  # a run that saves anyway, but run.sh is still read...
    check(tree)  # ...and its row, used today, survives: only rows unused for MAX_AGE_DAYS go
    assert any(f.endswith("run.sh") for _, f, _ in rows_of(tree))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET used = used - ? WHERE file LIKE '%run.sh'", (cache.MAX_AGE_DAYS + 1,))
        cache.prune(db, db.execute("SELECT code FROM entries LIMIT 1").fetchone()[0])
    assert not any(f.endswith("run.sh") for _, f, _ in rows_of(tree))


def test_pruning_keeps_the_total_under_the_bound(tree, monkeypatch):
    check(tree)
    sizes = {f: len(d) for _, f, d in rows_of(tree) if f}
    monkeypatch.setattr(cache, "MAX_BYTES", sum(sizes.values()) - 1)
    with sqlite3.connect(tree / ".dslint_cache" / cache.DB_NAME) as db:
        cache.prune(db, db.execute("SELECT code FROM entries LIMIT 1").fetchone()[0])
        total = db.execute("SELECT SUM(LENGTH(data)) FROM entries").fetchone()[0]
    assert total <= cache.MAX_BYTES and len(rows_of(tree)) < len(sizes) + 1


def test_a_kill_inside_the_save_transaction_leaves_the_old_rows(tree, counted):
    first = as_rows(check(tree))
    before = rows_of(tree)
    path = tree / ".dslint_cache" / cache.DB_NAME
    # A writer killed mid-transaction: its rows half written, its journal left behind.
    code = (f"import os, signal, sqlite3\n"
            f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            f"db.execute('PRAGMA cache_size = 1')\n"
            f"db.execute('BEGIN IMMEDIATE')\n"
            f"db.execute('DELETE FROM entries')\n"
            f"db.executemany('INSERT INTO entries VALUES (?, ?, ?, ?, 0, 1, ?, NULL)', "
            f"[(str(i), 'x', 'y', 'z', os.urandom(4096)) for i in range(300)])\n"
            f"os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    counted.clear()
    assert as_rows(check(tree)) == first
    assert counted == []  # the old rows, whole
    assert rows_of(tree) == before


def test_a_planted_pickle_runs_nothing(tree, counted, tmp_path_factory):
    first = as_rows(check(tree))
    marker = tmp_path_factory.mktemp("planted") / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with sqlite3.connect(tree / ".dslint_cache" / cache.DB_NAME) as db:
        db.execute("UPDATE entries SET data = ? WHERE file LIKE '%train.py'", (pickle.dumps(Evil()),))
    counted.clear()
    assert as_rows(check(tree)) == first and counted == ["train.py"]
    assert not marker.exists()


def test_a_deselected_rules_crash_is_not_reported(tree, monkeypatch):
    rule = RULES["DSL601"]

    def crash(ctx):
        raise ValueError("boom")

    monkeypatch.setitem(RULES, "DSL601", dataclasses.replace(rule, check=crash))
    assert "DSL003" in {f.code for f in check_uncached(tree).findings}
    old = os.getcwd()
    os.chdir(tree)
    try:
        narrow = engine.check(["."], Settings(select=["DSL1"]), root=tree, use_cache=False, jobs=1)
    finally:
        os.chdir(old)
    assert [f.code for f in narrow.findings] == ["DSL102"]


def test_legacy_whole_cache_pickles_are_removed(tree):
    folder = tree / ".dslint_cache"
    folder.mkdir()
    legacy = folder / "results-0.1.0-abc-def.pickle"
    legacy.write_bytes(b"x" * 1000)
    check(tree)
    assert not legacy.exists() and (folder / cache.DB_NAME).is_file()
