"""Watch a job for a bounded time: one the probe starts (and stops), or one already running.

The probe starts a command in a new session (its own process group) and marks its
environment with a random token. When it stops the job (time is up, Ctrl-C, SIGTERM, an
error), it signals exactly what it started: the process group, every descendant of the
command it has seen (launchers such as torchrun start ranks in sessions of their own), and
every process that carries its token, and every orphan re-parented to the probe (it is the
job's subreaper while it watches, so a daemon that double-forks, calls setsid and clears its
environment still comes back to it). A PID is signalled only while its start time is the one
recorded, so a reused PID is never touched. `--pid` watches without touching.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional

from dslint.probe import subreaper
from dslint.probe.observe import (
    Nvml,
    Observation,
    ObservationError,
    Observer,
    RankReport,
    descendants,
    new_observation,
    process_table,
    read_environ,
)

TOKEN_VAR = "DSLINT_PROBE_TOKEN"
OUT_VAR = "DSLINT_PROBE_OUT"


class Interrupted(Exception):
    """The probe itself got SIGTERM or SIGHUP."""


def _raise_interrupted(signum, frame):  # pragma: no cover - exercised through a subprocess
    raise Interrupted(signal.Signals(signum).name)


def _alive(pid: int, start_ticks: int, table: Optional[dict] = None) -> bool:
    table = process_table() if table is None else table
    return pid in table and table[pid][2] == start_ticks and not _is_zombie(pid)


def _live(members: dict[int, int]) -> list[int]:
    table = process_table()
    return sorted(p for p, s in members.items() if _alive(p, s, table))


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
        return text[text.rfind(")") + 2] == "Z"
    except OSError:
        return True


class Job:
    """A command started in its own session; `stop()` ends everything it started."""

    def __init__(self, cmd: list[str], env: Optional[dict[str, str]] = None, stdout=None, stderr=None) -> None:
        self.token = secrets.token_hex(8)
        self.env = dict(os.environ if env is None else env)
        self.env[TOKEN_VAR] = self.token
        self.me = os.getpid()
        self.other_children = {p: st for p, (pp, _, st) in process_table().items() if pp == self.me}
        self.proc = subprocess.Popen(cmd, env=self.env, start_new_session=True, stdout=stdout, stderr=stderr)
        self.pid = self.proc.pid
        self.known: dict[int, int] = {}  # pid -> start_ticks of everything seen below the command
        self.track()

    def _adopted(self, table: dict) -> list[int]:
        """Orphans of the job re-parented to us (we are its subreaper): new children that are not the job."""
        return [pid for pid, (ppid, _, start) in table.items()
                if ppid == self.me and pid != self.pid and self.other_children.get(pid) != start]

    def track(self) -> None:
        table = process_table()
        for pid in descendants([self.pid, *self._adopted(table)], table):
            self.known.setdefault(pid, table[pid][2])
        for pid, (_, pgid, start) in table.items():
            if pgid == self.pid:
                self.known.setdefault(pid, start)

    def _members(self) -> dict[int, int]:
        """Every live process this job started: descendants, its process group, carriers of its token."""
        self.track()
        table = process_table()
        members = {pid: st for pid, st in self.known.items() if pid in table and table[pid][2] == st}
        me = os.getpid()
        for pid, (_, _, start) in table.items():
            if pid in members or pid == me:
                continue
            try:
                if read_environ(pid).get(TOKEN_VAR) == self.token:
                    members[pid] = start
            except OSError:
                continue
        return members

    def _signal(self, sig: int) -> None:
        members = self._members()
        table = process_table()
        live = [p for p, s in members.items() if _alive(p, s, table)]
        # The group id is ours only while one of our processes is still in it (else it may be reused).
        if any(table[p][1] == self.pid for p in live):
            try:
                os.killpg(self.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in live:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def stop(self, grace_s: float = 5.0) -> None:
        """SIGTERM to everything the job started, then SIGKILL to what is left after `grace_s`."""
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            self.proc.poll()
            if not _live(self._members()):
                break
            time.sleep(0.1)
        self._signal(signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and _live(self._members()):
            self.proc.poll()
            time.sleep(0.05)
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        subreaper.reap(p for p in self._adopted(process_table()))

    def remaining(self) -> list[int]:
        return _live(self._members())


def _read_rank_reports(path: str) -> list[RankReport]:
    import json

    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    return [RankReport.model_validate(r) for r in data.get("ranks", [])]


def watch_command(
    cmd: list[str],
    seconds: float,
    interval: float = 1.0,
    grace_s: float = 5.0,
    use_gpus: bool = True,
    job_output=None,
    on_snapshot: Optional[Callable] = None,
) -> Observation:
    """Start `cmd`, take a snapshot every `interval` s for at most `seconds` (or until it exits), stop it."""
    nvml = Nvml() if use_gpus else None  # fails before anything is started when NVML is unusable
    out_dir = tempfile.mkdtemp(prefix="dslint-probe-")
    out_path = os.path.join(out_dir, "ranks.json")
    env = dict(os.environ)
    env[OUT_VAR] = out_path
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    for s in old:
        signal.signal(s, _raise_interrupted)
    job: Optional[Job] = None
    obs = new_observation("command", command=list(cmd))
    was_subreaper = subreaper.become()
    notes = []
    if was_subreaper is None:
        notes.append("could not make the probe the job's subreaper (Linux only): "
                              "a daemon that detaches from the job may outlive the watch")
    if job_output is None:  # the job's output goes to our stderr: our stdout carries only the findings
        try:
            job_output = sys.stderr.fileno()
        except (AttributeError, OSError, ValueError):
            job_output = None
    try:
        job = Job(cmd, env=env, stdout=job_output, stderr=job_output)
        obs.root_pids = [job.pid]
        observer = Observer(nvml, roots=[job.pid])
        end = time.monotonic() + seconds
        while True:
            snap = observer.snapshot()
            obs.snapshots.append(snap)
            job.track()
            if on_snapshot:
                on_snapshot(snap)
            if job.proc.poll() is not None or time.monotonic() >= end:
                break
            time.sleep(max(0.0, min(interval, end - time.monotonic())))
        obs.job_exit_code = job.proc.poll()
        obs.unobserved = notes + observer.unobserved
    except KeyboardInterrupt:
        obs.unobserved.append("the watch was cut short by Ctrl-C")
        raise
    finally:
        if job is not None:
            job.stop(grace_s)
            left = job.remaining()
            if left:
                obs.unobserved.append(f"could not stop processes {left} of the job")
        subreaper.restore(was_subreaper)
        for s, h in old.items():
            signal.signal(s, h)
        if nvml:
            nvml.close()
        obs.ranks = _read_rank_reports(out_path)
        for leftover in (out_path, out_path + ".lock"):
            try:
                os.unlink(leftover)
            except OSError:
                pass
        try:
            os.rmdir(out_dir)
        except OSError:
            pass
    return obs


def _watch(observer: Observer, obs: Observation, seconds: float, interval: float, done: Callable[[], bool]) -> None:
    """Snapshots every `interval` s until `seconds` have passed or `done()`; at least one."""
    end = time.monotonic() + seconds
    while True:
        obs.snapshots.append(observer.snapshot())
        if time.monotonic() >= end or done():
            break
        time.sleep(max(0.0, min(interval, end - time.monotonic())))
    obs.unobserved = observer.unobserved


def watch_pid(pid: int, seconds: float, interval: float = 1.0, use_gpus: bool = True, ranks_json: Optional[str] = None) -> Observation:
    """Watch a running process and its descendants without touching them."""
    if not os.path.exists(f"/proc/{pid}"):
        raise ObservationError(f"could not observe process {pid} because it does not exist")
    nvml = Nvml() if use_gpus else None
    try:
        obs = new_observation("pid", roots=[pid])
        _watch(Observer(nvml, roots=[pid]), obs, seconds, interval, lambda: not os.path.exists(f"/proc/{pid}"))
    finally:
        if nvml:
            nvml.close()
    if ranks_json:
        obs.ranks = _read_rank_reports(ranks_json)
    return obs


def watch_machine(seconds: float, interval: float = 1.0, ranks_json: Optional[str] = None) -> Observation:
    """Snapshots of every GPU process on this machine (and what they started)."""
    nvml = Nvml()
    try:
        obs = new_observation("snapshot")
        _watch(Observer(nvml), obs, seconds, interval, lambda: False)
    finally:
        nvml.close()
    if ranks_json:
        obs.ranks = _read_rank_reports(ranks_json)
    return obs
