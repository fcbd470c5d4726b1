"""`dslint probe` from the command line: exit codes and messages (no GPU needed)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from dslint.probe.cli import probe_main

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "fixtures" / "probe"


def probe(args, extra_path=None, timeout=30):
    env = dict(os.environ)
    paths = [str(ROOT / "src")] + ([str(extra_path)] if extra_path else []) + [env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return subprocess.run([sys.executable, "-m", "dslint.probe.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_nvml_that_cannot_start_is_exit_2_and_the_job_is_never_started(tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "pynvml.py").write_text(
        "class NVMLError(Exception):\n    pass\n"
        "def nvmlInit():\n    raise NVMLError('NVML Shared Library Not Found')\n"
    )
    marker = tmp_path / "started"
    r = probe(["--seconds", "1", "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"], extra_path=fake)
    assert r.returncode == 2
    assert "could not observe GPUs because NVML could not be initialised: NVML Shared Library Not Found" in r.stderr
    assert not marker.exists()


def test_missing_nvml_binding_is_exit_2(tmp_path):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "pynvml.py").write_text("raise ImportError('No module named pynvml')\n")
    r = probe(["--seconds", "1"], extra_path=fake)
    assert r.returncode == 2
    assert "could not observe GPUs because the NVML Python binding is not installed" in r.stderr


def test_pid_that_does_not_exist_is_exit_2(capsys):
    assert probe_main(["--pid", "99999999"]) == 2
    assert "could not observe process 99999999 because it does not exist" in capsys.readouterr().err


def test_saved_observation_gives_json_findings_and_exit_1(capsys):
    assert probe_main(["--observation", str(FIX / "l_double.json"), "--output-format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert sorted(f["code"] for f in out) == ["DSL901", "DSL903"]
    assert all(f["location"] == {"row": 1, "column": 1} for f in out)


def test_clean_saved_observation_is_exit_0(capsys):
    assert probe_main(["--observation", str(FIX / "idle.json"), "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_two_modes_at_once_is_a_usage_error(capsys):
    assert probe_main(["--pid", "1", "--", "true"]) == 2
    assert "choose one of" in capsys.readouterr().err


def test_probe_modules_import_neither_nvml_nor_torch():
    code = ("import sys, dslint.probe.cli, dslint.probe.observe, dslint.probe.findings, dslint.probe.runner, "
            "dslint.probe.collective; print(sorted(m for m in ('pynvml', 'torch', 'lightning') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=30)
    assert r.stdout.strip() == "[]", r.stderr


def test_the_command_starts_after_dashdash_or_after_our_options():
    from dslint.probe.cli import split_command

    assert split_command(["--seconds", "5", "--", "torchrun", "--nproc_per_node", "2", "t.py"]) == (
        ["--seconds", "5"], ["torchrun", "--nproc_per_node", "2", "t.py"])
    # click drops the `--` before the mounted command sees its arguments
    assert split_command(["--seconds=5", "--collective", "torchrun", "--nproc_per_node", "2"]) == (
        ["--seconds=5", "--collective"], ["torchrun", "--nproc_per_node", "2"])
    assert split_command(["--pid", "12"]) == (["--pid", "12"], [])


def test_mounted_in_the_main_cli(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dslint", "probe", "--pid", "99999999"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    assert r.returncode == 2
    assert "could not observe process 99999999 because it does not exist" in r.stderr


def test_a_missing_observation_file_is_a_clear_error(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "dslint", "probe", "--observation", str(tmp_path / "missing.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "could not read" in proc.stderr and "missing.json" in proc.stderr
    assert "Traceback" not in proc.stderr
