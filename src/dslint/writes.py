"""Writing fixed files: atomically, only over the very bytes that were read, keeping the file's
mode and owner; temporary files named so that a later run recognises and removes them."""
from __future__ import annotations

import os
import re
import secrets
import stat
import time
from typing import Optional

from .sources.files import NotRegularFile, Snapshot, read_snapshot

# `.train.py.dslint-4242-1a2b3c4d.tmp`; the pid says whether its writer may still be running.
TEMP_NAME = re.compile(r"^\..*\.dslint-(?P<pid>\d+)-[0-9a-f]+\.tmp$")
# Names of earlier versions: `.dslint-XXXXXXXX.tmp` next to files, `tmpXXXXXXXX` in the cache folder.
LEGACY_TEMP_NAME = re.compile(r"^\.dslint-[A-Za-z0-9_]{8}\.tmp$")
STALE_AFTER_S = 60.0


class Skipped(Exception):
    """The file was left alone on purpose; the message says why (one line)."""


def temp_path_for(path: str) -> str:
    folder, name = os.path.split(path)
    # (a name near NAME_MAX, 255 bytes, is cut: the temporary name adds about 30)
    return os.path.join(folder, f".{name[:200]}.dslint-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def replace_if_unchanged(path: str, data: bytes, before: Snapshot) -> None:
    """Replace `path` with `data` unless the file changed since `before` was read.

    Raises Skipped (changed, deleted, not a regular file, several hard links) or OSError (the
    write failed: read-only folder, full disk); the original is untouched in both cases.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise Skipped("deleted while fixing") from None
    if stat.S_ISDIR(info.st_mode):
        raise Skipped("replaced by a directory while fixing")
    if not stat.S_ISREG(info.st_mode):
        raise Skipped("changed while fixing" if stat.S_ISLNK(info.st_mode) else "not a regular file")
    if info.st_nlink > 1:
        # A rename would split the links into two files, and an in-place write is not atomic
        # (a kill part-way would truncate the file under every name), so such a file is skipped.
        raise Skipped(f"has {info.st_nlink} hard links; fix it by hand (dslint writes by rename, which would split them)")
    tmp = temp_path_for(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            _keep_owner(fd, info)
            os.fchmod(fd, stat.S_IMODE(info.st_mode))  # after chown, which clears set-id bits
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            now = read_snapshot(path)
        except FileNotFoundError:
            raise Skipped("deleted while fixing") from None
        except NotRegularFile:
            raise Skipped("replaced by a directory while fixing" if os.path.isdir(path) else "not a regular file") from None
        if not now.same_as(before):
            raise Skipped("changed while fixing")
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _keep_owner(fd: int, info: os.stat_result) -> None:
    """Give the new file the old one's owner and group where we may (root; a group we are in)."""
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid):
        return
    for uid, gid in ((info.st_uid, info.st_gid), (-1, info.st_gid)):
        try:
            os.fchown(fd, uid, gid)
            return
        except PermissionError:
            continue
        except OSError:
            return


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, someone else's
        return True
    return True


def remove_stale_temps(folder: str, *, legacy: Optional[re.Pattern] = LEGACY_TEMP_NAME) -> int:
    """Remove dslint's temporary files in `folder` left by runs that were killed: those whose
    writer is gone, or older than a minute (a writer takes milliseconds; a pid can be reused)."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    now = time.time()
    for entry in entries:
        match = TEMP_NAME.match(entry.name)
        if match is None and not (legacy is not None and legacy.match(entry.name)):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S
        except OSError:
            continue
        if old or (match is not None and int(match.group("pid")) != os.getpid() and not _pid_alive(int(match.group("pid")))):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed
