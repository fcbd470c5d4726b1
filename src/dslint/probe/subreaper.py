"""Orphans come back to the probe: Linux's child-subreaper attribute (prctl(2) PR_SET_CHILD_SUBREAPER).

A daemon that double-forks and calls setsid leaves the command's process tree and its process
group, and with `env -i` it drops the probe's token too. While the probe is a subreaper, such an
orphan is re-parented to the probe instead of to init, so it stays in sight and can be stopped.
"""
from __future__ import annotations

import ctypes
import os
import sys
from typing import Optional

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def become() -> Optional[bool]:
    """Make this process a subreaper; the previous setting (to `restore`), None when it cannot be done."""
    prctl = _prctl()
    if prctl is None:
        return None
    previous = ctypes.c_int(0)
    if prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(previous), 0, 0, 0) != 0:
        return None
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return None
    return bool(previous.value)


def restore(previous: Optional[bool]) -> None:
    if previous is False:
        prctl = _prctl()
        if prctl is not None:
            prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def reap(pids) -> None:
    """Collect the exit status of re-parented children that have ended (no zombies left behind)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except (ChildProcessError, OSError):
            pass
