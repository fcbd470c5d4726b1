"""The probe stops exactly what it started, and never waits without a limit (real processes, no GPU)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from dslint.probe import runner
from dslint.probe.observe import ObservationError, process_table

# A child that ignores SIGTERM and starts a grandchild in a session of its own (as torchrun does
# with its workers) that ignores SIGTERM too; both write their PIDs to a file.
STUBBORN = r"""
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
g = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"], start_new_session=True)
with open(sys.argv[1], "w") as f:
    f.write(f"{os.getpid()} {g.pid}")
time.sleep(120)
"""


def _pids(path, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            text = open(path).read().split()
            if len(text) == 2:
                return [int(x) for x in text]
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError("the child never wrote its PIDs")


def _gone(pid):
    table = process_table()
    if pid not in table:
        return True
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    return s[s.rfind(")") + 2] == "Z"


def test_stop_kills_child_and_grandchild_in_another_session_that_ignore_sigterm(tmp_path):
    pidfile = tmp_path / "pids"
    t0 = time.monotonic()
    obs = runner.watch_command([sys.executable, "-c", STUBBORN, str(pidfile)], seconds=1.0, interval=0.5,
                               grace_s=0.5, use_gpus=False)
    child, grandchild = _pids(pidfile)
    assert _gone(child) and _gone(grandchild)
    assert time.monotonic() - t0 < 8
    seen = {p.pid for s in obs.snapshots for p in s.processes}
    assert {child, grandchild} <= seen
    assert obs.unobserved == []


def test_an_unrelated_process_survives(tmp_path):
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        runner.watch_command([sys.executable, "-c", STUBBORN, str(tmp_path / "p")], seconds=0.5, interval=0.25,
                             grace_s=0.3, use_gpus=False)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def test_a_job_that_ends_ends_the_watch_early():
    t0 = time.monotonic()
    obs = runner.watch_command([sys.executable, "-c", "import sys; sys.exit(3)"], seconds=30, interval=0.2, use_gpus=False)
    assert obs.job_exit_code == 3
    assert time.monotonic() - t0 < 5


def test_ctrl_c_still_stops_the_job(tmp_path):
    pidfile = tmp_path / "pids"
    calls = []

    def interrupt(snap):
        calls.append(snap)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.watch_command([sys.executable, "-c", STUBBORN, str(pidfile)], seconds=30, interval=0.3, grace_s=0.3,
                             use_gpus=False, on_snapshot=interrupt)
    child, grandchild = _pids(pidfile)
    assert _gone(child) and _gone(grandchild)


def test_sigterm_to_the_probe_stops_the_job(tmp_path):
    pidfile = tmp_path / "pids"
    code = (
        "import sys; from dslint.probe import runner; "
        f"runner.watch_command([sys.executable, '-c', {STUBBORN!r}, {str(pidfile)!r}], seconds=60, interval=0.2, "
        "grace_s=0.3, use_gpus=False)"
    )
    probe = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    child, grandchild = _pids(pidfile)
    time.sleep(0.5)
    probe.send_signal(signal.SIGTERM)
    _, err = probe.communicate(timeout=15)
    assert b"Interrupted" in err and b"SIGTERM" in err
    assert _gone(child) and _gone(grandchild)


def test_watch_pid_of_a_missing_process_is_a_clear_error():
    with pytest.raises(ObservationError, match=r"could not observe process 99999999 because it does not exist"):
        runner.watch_pid(99999999, seconds=1, use_gpus=False)


def test_watch_pid_observes_without_touching():
    job = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        obs = runner.watch_pid(job.pid, seconds=0.6, interval=0.3, use_gpus=False)
        assert job.poll() is None
        assert all(any(p.pid == job.pid for p in s.processes) for s in obs.snapshots)
        assert len(obs.snapshots) >= 2
    finally:
        job.kill()
        job.wait()


# A daemon as `setsid env -i ...` makes one: it double-forks and starts a session of its own, so it
# leaves the command's tree, its process group and (with env -i) the probe's token, within milliseconds.
DAEMON = r"""
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
"""


def _pid_in(path, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError("the daemon never wrote its PID")


def test_a_daemon_that_detaches_at_once_is_stopped_too(tmp_path):
    pidfile = tmp_path / "daemon.pid"
    # the job: start the daemon, wait until it has written its PID, then exit
    launcher = (f"import subprocess, sys, os, time\n"
                f"subprocess.Popen(['setsid', 'env', '-i', sys.executable, '-c', {DAEMON!r}, {str(pidfile)!r}])\n"
                f"while not os.path.exists({str(pidfile)!r}): time.sleep(0.01)\n")
    obs = runner.watch_command([sys.executable, "-c", launcher], seconds=10, interval=0.2, grace_s=0.5, use_gpus=False)
    daemon = _pid_in(pidfile)
    try:
        assert _gone(daemon), "the detached daemon outlived the probe"
        assert obs.unobserved == []
    finally:
        if not _gone(daemon):
            os.kill(daemon, signal.SIGKILL)


def test_the_probe_says_so_when_it_cannot_be_the_subreaper(monkeypatch):
    from dslint.probe import subreaper

    monkeypatch.setattr(subreaper, "become", lambda: None)
    obs = runner.watch_command([sys.executable, "-c", "pass"], seconds=5, interval=0.2, use_gpus=False)
    assert any("subreaper" in line for line in obs.unobserved)


def test_the_subreaper_setting_is_restored_after_the_watch():
    import ctypes

    from dslint.probe import subreaper

    runner.watch_command([sys.executable, "-c", "pass"], seconds=5, interval=0.2, use_gpus=False)
    value = ctypes.c_int(-1)
    ctypes.CDLL(None).prctl(subreaper.PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0)
    assert value.value == 0
