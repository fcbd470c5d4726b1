"""Faults: never a lost edit, never a hang on special files, never a run lost to one bad file.

Real processes and files: FIFOs and sockets in the tree, symlinks in and out, hard links,
files edited, deleted or replaced while `fix` runs, read-only folders, a full disk, `kill -9`
while writing, broken caches and concurrent runs sharing one cache.
"""
from __future__ import annotations

import os
import pickle
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dslint import engine
from dslint.engine import cache, fixloop, parallel
from dslint.settings import Settings

BAD = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
a = torch.load("a.pt")
"""
FIXED = BAD.replace('torch.load("a.pt")', 'torch.load("a.pt", map_location="cpu")')
TEMP = re.compile(r"\.dslint-\d+-[0-9a-f]+\.tmp$")


def run_cli(cwd, *args, timeout=120, **kwargs):
    return subprocess.run([sys.executable, "-m", "dslint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def temps_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if TEMP.search(p.name)]


def fix_in(folder: Path, *paths: str, write: bool = True):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return engine.fix(list(paths) or ["."], Settings(), root=folder, write=write)
    finally:
        os.chdir(old)


def check_in(folder: Path, use_cache: bool = True):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return engine.check(["."], Settings(), root=folder, use_cache=use_cache)
    finally:
        os.chdir(old)


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs mounted at tmp_path/mnt (skipped where this process may not mount one)."""
    point = tmp_path / "mnt"
    point.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(point)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip() or proc.returncode}")
    yield point
    subprocess.run(["umount", "-l", str(point)], capture_output=True)


# -- 1. an edit saved while `fix` runs is never overwritten -----------------------------------

def _edit_before_write(monkeypatch, action):
    """Run `action(path)` on each file right before `fix` replaces it (after reading and fixing)."""
    original = fixloop.replace_if_unchanged

    def patched(path, data, before):
        action(Path(path))
        return original(path, data, before)

    monkeypatch.setattr(fixloop, "replace_if_unchanged", patched)


def test_fix_skips_a_file_edited_between_read_and_write(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "other.py").write_text(BAD)
    user_edit = BAD + "# saved by the user while fix ran\n"
    _edit_before_write(monkeypatch, lambda p: p.write_text(user_edit) if p.name == "train.py" else None)
    outcome = fix_in(tmp_path)
    assert (tmp_path / "train.py").read_text() == user_edit
    assert (tmp_path / "other.py").read_text() == FIXED
    assert outcome.skipped == ["skipped train.py: changed while fixing"]
    assert list(outcome.changed) == [str(tmp_path / "other.py")]
    assert [f.path for f in outcome.remaining.findings] == ["train.py"]
    assert not temps_under(tmp_path)


def test_fix_skips_a_file_touched_with_the_same_size(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(BAD)
    swapped = BAD.replace('"a.pt"', '"b.pt"')  # same size, other bytes; mtime may even be equal
    _edit_before_write(monkeypatch, lambda p: p.write_text(swapped))
    outcome = fix_in(tmp_path)
    assert (tmp_path / "train.py").read_text() == swapped
    assert outcome.skipped == ["skipped train.py: changed while fixing"]


# -- 2. symlinks: never written through to outside the given paths ----------------------------

def test_fix_never_writes_through_a_symlink_to_outside(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "proj").mkdir()
    victim = tmp_path / "outside" / "victim.py"
    victim.write_text(BAD)
    (tmp_path / "proj" / "link.py").symlink_to("../outside/victim.py")
    (tmp_path / "proj" / "train.py").write_text(BAD)
    proc = run_cli(tmp_path, "fix", "proj")
    assert victim.read_text() == BAD
    assert (tmp_path / "proj" / "link.py").is_symlink()
    assert (tmp_path / "proj" / "train.py").read_text() == FIXED
    assert f"dslint: skipped proj/link.py: symlink to outside the given paths ({victim})" in proc.stderr
    assert proc.returncode == 1  # the finding seen through the link remains


def test_a_symlink_named_on_the_command_line_is_not_its_target(tmp_path):
    victim = tmp_path / "victim.py"
    victim.write_text(BAD)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "link.py").symlink_to(victim)
    proc = run_cli(tmp_path, "fix", "proj/link.py")
    assert victim.read_text() == BAD
    assert "skipped proj/link.py: symlink to outside the given paths" in proc.stderr


def test_a_symlink_to_a_file_inside_the_paths_fixes_the_target_once(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "alias.py").symlink_to("train.py")
    outcome = fix_in(tmp_path)
    assert (tmp_path / "train.py").read_text() == FIXED  # once: a second edit would add map_location twice
    assert (tmp_path / "alias.py").is_symlink()
    assert outcome.applied == 1 and outcome.skipped == []
    assert outcome.remaining.findings == []


# -- 3. owner, group, mode; hard links ----------------------------------------------------------

@pytest.mark.skipif(not is_root(), reason="only root can give a file to another user")
def test_fix_keeps_owner_group_and_mode(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(BAD)
    os.chown(path, 12345, 23456)
    path.chmod(0o640)
    fix_in(tmp_path)
    info = path.stat()
    assert path.read_text() == FIXED
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (12345, 23456, 0o640)


def test_a_hard_linked_file_is_skipped_and_stays_one_file(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    os.link(tmp_path / "train.py", tmp_path / "copy_of_train.py")
    outcome = fix_in(tmp_path)
    assert os.path.samefile(tmp_path / "train.py", tmp_path / "copy_of_train.py")
    assert (tmp_path / "train.py").read_text() == BAD
    assert "skipped train.py: has 2 hard links; fix it by hand (dslint writes by rename, which would split them)" in outcome.skipped
    assert outcome.changed == {}


# -- 4. kill -9 while writing: old or new, and the next run cleans up --------------------------

def test_kill_during_fix_leaves_old_or_new_files_and_the_next_run_cleans_up(tmp_path):
    names = [f"train_{i:03d}.py" for i in range(80)]
    for name in names:
        (tmp_path / name).write_text(BAD)
    left = []
    for _ in range(15):  # until a kill lands while a temporary file exists
        proc = subprocess.Popen([sys.executable, "-m", "dslint", "fix", "."], cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if any(TEMP.search(n) for n in os.listdir(tmp_path)):
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(timeout=60)
        for name in names:
            assert (tmp_path / name).read_text() in (BAD, FIXED)
        left = temps_under(tmp_path)
        if left:
            break
        for name in names:
            (tmp_path / name).write_text(BAD)
    assert left, "no kill landed while writing in 15 tries"
    proc = run_cli(tmp_path, "fix", ".")
    assert proc.returncode == 0, proc.stderr
    assert not temps_under(tmp_path)
    assert all((tmp_path / name).read_text() == FIXED for name in names)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporary_files_are_removed_and_live_ones_kept(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    dead = tmp_path / f".train.py.dslint-{_dead_pid()}-0badf00d.tmp"
    old = tmp_path / f".train.py.dslint-{os.getpid()}-0ddba11a.tmp"  # a live pid, but an hour old
    live = tmp_path / f".train.py.dslint-{os.getpid()}-5ca1ab1e.tmp"  # this test is writing it
    legacy = tmp_path / ".dslint-ab12cd34.tmp"  # the name earlier versions used
    for path in (dead, old, live, legacy):
        path.write_text("half a file")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    os.utime(legacy, (hour_ago, hour_ago))
    run_cli(tmp_path, "fix", ".")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [live.name]
    assert (tmp_path / "train.py").read_text() == FIXED


def test_a_kill_during_cache_save_leaves_a_temp_the_next_run_removes(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    assert run_cli(tmp_path, "check").returncode == 1
    cache = tmp_path / ".dslint_cache"
    [saved] = cache.glob("results.sqlite3")  # (a kill inside its transaction leaves the old rows: tests/test_cache_store.py)
    left = cache / f".results-0.pickle.dslint-{_dead_pid()}-deadbeef.tmp"
    left.write_bytes(saved.read_bytes()[:10])  # what a kill in the middle of an earlier version's save leaves
    (tmp_path / "train.py").write_text(BAD + "# edited\n")  # so the next run saves again
    assert run_cli(tmp_path, "check").returncode == 1
    assert not left.exists()
    assert not temps_under(tmp_path)


# -- 5. only regular files are read: FIFOs, sockets, unreadable folders -------------------------

def _special_tree(root: Path) -> Path:
    root.mkdir(exist_ok=True)
    (root / "train.py").write_text(BAD)
    for name in ("pipe.py", "ds_config.json", "launch.sh"):
        os.mkfifo(root / name)
    return root


def test_check_and_fix_skip_fifos_and_sockets_in_the_tree(tmp_path):
    tree = _special_tree(tmp_path / "t")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tree / "sock.py"))
    try:
        for command in ("check", "fix"):
            proc = run_cli(tmp_path, command, "t", "--no-cache" if command == "check" else "--quiet", timeout=60)
            for name in ("pipe.py", "ds_config.json", "launch.sh", "sock.py"):
                assert f"dslint: skipped t/{name}: not a regular file" in proc.stderr, (command, proc.stderr)
            assert proc.returncode == (1 if command == "check" else 0), proc.stderr
    finally:
        server.close()
    assert (tree / "train.py").read_text() == FIXED


def test_a_fifo_named_on_the_command_line_is_reported(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    proc = run_cli(tmp_path, "check", "--no-cache", "pipe.py", timeout=60)
    assert "pipe.py" in proc.stderr and "not a regular file" in proc.stderr
    assert proc.returncode in (0, 2)


def test_the_engine_skips_a_fifo_named_directly(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    result = engine.check([str(tmp_path / "pipe.py")], Settings(), root=tmp_path, use_cache=False)
    assert result.skipped == [f"skipped {tmp_path / 'pipe.py'}: not a regular file"]
    assert result.findings == []


def test_a_file_replaced_by_a_fifo_after_discovery_does_not_block(tmp_path):
    from dslint.sources.discover import SourceFile

    os.mkfifo(tmp_path / "late.py")
    result = engine.check_file(SourceFile("late.py", str(tmp_path / "late.py"), "python"), Settings())
    assert [(f.code, f.message) for f in result.findings] == [("DSL002", "not a regular file")]


def test_a_fifo_that_a_launch_line_names_does_not_block(tmp_path):
    """The project phase reads files the launch layer names (an accelerate config) outside the walk."""
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "launch.sh").write_text("#!/bin/bash\naccelerate launch --config_file accel.yaml train.py\n")
    os.mkfifo(tmp_path / "accel.yaml")
    proc = run_cli(tmp_path, "check", "--no-cache", ".", timeout=60)
    assert "train.py:4:5: DSL102" in proc.stdout
    assert proc.returncode == 1


@pytest.mark.skipif(is_root(), reason="root reads a folder whatever its mode")
def test_an_unreadable_folder_is_reported_in_one_line(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.py").write_text(BAD)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("this user can read a folder with mode 000")
        proc = run_cli(tmp_path, "check", "--no-cache", ".", timeout=60)
    finally:
        locked.chmod(0o755)
    assert proc.stderr.count("locked") == 1 and "skipped locked: cannot read the folder" in proc.stderr
    assert proc.returncode == 1


def test_the_engine_reports_an_unlistable_folder(tmp_path, monkeypatch):
    """(Also as root: the walk's listing of one folder fails as it would for a mode-000 folder.)"""
    (tmp_path / "locked").mkdir()
    (tmp_path / "train.py").write_text(BAD)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = check_in(tmp_path, use_cache=False)
    assert result.skipped == ["skipped locked: cannot read the folder (Permission denied)"]
    assert [f.path for f in result.findings] == ["train.py"]


def test_the_language_server_lint_does_not_block_on_a_fifo(tmp_path):
    from dslint.lsp_lint import OpenDocument, WorkspaceLinter

    tree = _special_tree(tmp_path / "t")
    doc = OpenDocument(path=str(tree / "train.py"), text=BAD, version=1, language_id="python")
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(done=WorkspaceLinter().lint([doc])), daemon=True)
    thread.start()
    thread.join(timeout=60)
    try:
        assert not thread.is_alive(), "the lint thread blocked on a FIFO"
        assert [f.code for f in outcome["done"].findings[doc.path]] == ["DSL102"]
    finally:
        for name in ("pipe.py", "ds_config.json", "launch.sh"):  # release a blocked reader, if any
            try:
                os.close(os.open(tree / name, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass


# -- 11. a file that cannot be written: one line, the rest fixed -------------------------------

def test_fix_of_a_file_deleted_before_its_write(tmp_path, monkeypatch):
    (tmp_path / "gone.py").write_text(BAD)
    (tmp_path / "train.py").write_text(BAD)
    _edit_before_write(monkeypatch, lambda p: p.unlink() if p.name == "gone.py" else None)
    outcome = fix_in(tmp_path)
    assert outcome.skipped == ["skipped gone.py: deleted while fixing"]
    assert not (tmp_path / "gone.py").exists()
    assert (tmp_path / "train.py").read_text() == FIXED
    assert outcome.remaining.findings == [] and not temps_under(tmp_path)


def test_fix_of_a_file_replaced_by_a_directory_before_its_write(tmp_path, monkeypatch):
    (tmp_path / "dir.py").write_text(BAD)
    (tmp_path / "train.py").write_text(BAD)

    def replace(path):
        if path.name == "dir.py":
            path.unlink()
            path.mkdir()

    _edit_before_write(monkeypatch, replace)
    outcome = fix_in(tmp_path)
    assert outcome.skipped == ["skipped dir.py: replaced by a directory while fixing"]
    assert (tmp_path / "dir.py").is_dir()
    assert (tmp_path / "train.py").read_text() == FIXED


@pytest.mark.skipif(is_root(), reason="root writes into a read-only folder (see the read-only mount test)")
def test_fix_in_a_read_only_folder(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "train.py").write_text(BAD)
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "ro").chmod(0o555)
    try:
        if os.access(tmp_path / "ro", os.W_OK):
            pytest.skip("this user can write into a folder with mode 555")
        proc = run_cli(tmp_path, "fix", ".")
    finally:
        (tmp_path / "ro").chmod(0o755)
    assert "dslint: error: cannot write ro/train.py: Permission denied" in proc.stderr
    assert (tmp_path / "ro" / "train.py").read_text() == BAD
    assert (tmp_path / "train.py").read_text() == FIXED
    assert proc.returncode == 2


def test_fix_on_a_read_only_mount(tmpfs, tmp_path):
    (tmpfs / "train.py").write_text(BAD)
    (tmp_path / "train.py").write_text(BAD)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    proc = run_cli(tmp_path, "fix", "mnt", "train.py")
    assert "dslint: error: cannot write mnt/train.py: Read-only file system" in proc.stderr
    assert proc.stdout.count("mnt/train.py:4:5: DSL102") == 1  # the remaining finding is reported
    assert (tmpfs / "train.py").read_text() == BAD
    assert (tmp_path / "train.py").read_text() == FIXED
    assert proc.returncode == 2


def test_fix_on_a_full_disk(tmpfs):
    small, big = tmpfs / "small.py", tmpfs / "big.py"
    small.write_text(BAD)
    big.write_text(BAD + "".join(f"x{i} = {i}  # padding the file to several pages\n" for i in range(600)))
    filler = tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the disk, then free two pages: room for small.py only
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    os.truncate(filler, max(0, filler.stat().st_size - 8192))
    proc = run_cli(tmpfs, "fix", ".")
    assert "dslint: error: cannot write big.py: No space left on device" in proc.stderr
    assert small.read_text() == FIXED
    assert big.read_text().startswith(BAD)
    assert not temps_under(tmpfs)
    assert proc.returncode == 2


def test_fix_when_a_write_fails_part_way(tmp_path):
    """A write cut off by the file-size limit (EFBIG), a disk-full stand-in that needs no mount."""
    import resource

    (tmp_path / "small.py").write_text(BAD)
    (tmp_path / "big.py").write_text(BAD + "# padding\n" * 2000)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    proc = run_cli(tmp_path, "fix", ".", preexec_fn=limit)
    assert "dslint: error: cannot write big.py: File too large" in proc.stderr
    assert (tmp_path / "small.py").read_text() == FIXED
    assert (tmp_path / "big.py").read_text().startswith(BAD)
    assert not temps_under(tmp_path)
    assert proc.returncode == 2


# -- 12. a cache that unpickles into the wrong structure ---------------------------------------

def _wrong_structures():
    """(name, make): each turns a saved row (key, value) into something that unpickles but is not an entry."""
    import dataclasses

    def per_file(value):
        return lambda key, v: v if key.startswith("\0setup") else value(v)

    return [("a list", lambda key, v: [key, v]),
            ("None", lambda key, v: None),
            ("strings for results", per_file(lambda v: "not a result")),
            ("findings not a list", per_file(lambda v: dataclasses.replace(v, findings=7))),
            ("findings of the wrong type", per_file(lambda v: dataclasses.replace(v, findings=[("DSL102", 4)]))),
            ("a foreign type", per_file(lambda v: re.compile("x"))),
            ("setup entry of the wrong shape", lambda key, v: ("findings", 3) if key.startswith("\0setup") else v)]


@pytest.mark.parametrize("make", [m for _, m in _wrong_structures()], ids=[n for n, _ in _wrong_structures()])
def test_a_wrongly_structured_cache_is_rebuilt(tmp_path, make):
    (tmp_path / "train.py").write_text(BAD)
    first = [(f.path, f.code, f.span.start.row) for f in check_in(tmp_path).findings]
    [saved] = (tmp_path / ".dslint_cache").glob("results.sqlite3")
    with sqlite3.connect(saved) as db:
        rows = db.execute("SELECT key, data FROM entries").fetchall()
        db.executemany("UPDATE entries SET data = ? WHERE key = ?",
                       [(pickle.dumps(make(key, pickle.loads(data))), key) for key, data in rows])
    again = check_in(tmp_path)
    assert [(f.path, f.code, f.span.start.row) for f in again.findings] == first == [("train.py", "DSL102", 4)]
    assert not again.internal_error and not again.errors
    with sqlite3.connect(saved) as db:  # rebuilt and saved again
        rows = db.execute("SELECT key, data FROM entries").fetchall()
    assert len(rows) == 2 and all(cache.valid_entry(key, pickle.loads(data)) for key, data in rows)


# -- 16. the cache key hashes the bytes that were linted ----------------------------------------

def test_a_file_edited_between_hash_and_lint_does_not_poison_the_cache(tmp_path, monkeypatch):
    path = tmp_path / "train.py"
    path.write_text(BAD)
    original = parallel.check_file

    def edit_then_check(source, *args, **kwargs):
        path.write_text(FIXED)  # saved right after dslint hashed the file
        return original(source, *args, **kwargs)

    monkeypatch.setattr(parallel, "check_file", edit_then_check)
    check_in(tmp_path)
    monkeypatch.setattr(parallel, "check_file", original)
    path.write_text(BAD)  # back to the content that was hashed (an undo, a checkout)
    cached = check_in(tmp_path)
    assert [f.code for f in cached.findings] == [f.code for f in check_in(tmp_path, use_cache=False).findings] == ["DSL102"]


# -- concurrent runs share one cache ------------------------------------------------------------

def test_concurrent_checks_share_the_cache(tmp_path):
    for i in range(12):
        (tmp_path / f"train_{i}.py").write_text(BAD if i % 3 else FIXED)
    procs = [subprocess.Popen([sys.executable, "-m", "dslint", "check", "-o", "json", "."], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
    outputs = [(p.returncode, out) for p in procs for out, _ in [p.communicate(timeout=180)]]
    expected = run_cli(tmp_path, "check", "-o", "json", "--no-cache", ".")
    assert outputs == [(1, expected.stdout)] * 6
    with sqlite3.connect(tmp_path / ".dslint_cache" / "results.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT COUNT(*) FROM entries WHERE file <> ''").fetchone() == (12,)
    assert not temps_under(tmp_path)
    warm = run_cli(tmp_path, "check", "-o", "json", ".")
    assert (warm.returncode, warm.stdout) == (1, expected.stdout)
