"""The command line as a ruff user meets it: selectors, settings files, paths, noqa, stdin and
the options people reach for. Every test runs the installed console script in a subprocess."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import dslint

ROOT = Path(__file__).resolve().parents[1]
DSLINT = str(Path(sys.executable).parent / "dslint")
SAME_GPU = (ROOT / "examples" / "ddp_same_gpu" / "train.py").read_text()  # DSL101 on rows 12 and 14
LOADER = (ROOT / "examples" / "unsharded_loader" / "train.py").read_text()  # DSL301, DSL302 (safe fix)


def dslint_run(cwd, *args, stdin: str | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DSLINT_", "FORCE_COLOR"))}
    return subprocess.run([DSLINT, *args], cwd=cwd, capture_output=True, text=True, timeout=120, input=stdin, env=env)


def codes(proc) -> list[tuple[str, int, str]]:
    return sorted((f["filename"], f["location"]["row"], f["code"]) for f in json.loads(proc.stdout))


def error_lines(proc) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def assert_one_clean_error(proc, *words):
    assert proc.returncode == 2, proc.stderr
    lines = error_lines(proc)
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "Traceback" not in proc.stderr and "validation error" not in proc.stderr.lower()
    assert "Input should" not in proc.stderr  # dslint's words, not pydantic's
    assert "All checks passed" not in proc.stderr


# -- 1. rule selectors ---------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_a_mistyped_code_on_the_command_line_is_a_usage_error_with_the_nearest_codes(tmp_path, option):
    write(tmp_path, {"train.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", option, "DSL160")
    assert_one_clean_error(proc, "unknown rule selector 'DSL160'", option, "did you mean DSL106, DSL101?")
    proc = dslint_run(tmp_path, "check", "--no-cache", option, "DSL999")
    assert_one_clean_error(proc, "unknown rule selector 'DSL999'", option)


def test_per_file_ignores_on_the_command_line_are_validated_and_applied(tmp_path):
    write(tmp_path, {"train.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "--per-file-ignores", "train.py:DSL160")
    assert_one_clean_error(proc, "unknown rule selector 'DSL160'", "--per-file-ignores", "DSL106")
    assert_one_clean_error(dslint_run(tmp_path, "check", "--per-file-ignores", "train.py"), "PATTERN:CODES")
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "--per-file-ignores", "train*.py:DSL1")
    assert (proc.returncode, codes(proc)) == (0, [])


@pytest.mark.parametrize("table", [
    'select = ["DSL160"]', 'ignore = ["DSL160"]', 'extend-select = ["DSL160"]',
    'per-file-ignores = {"train.py" = ["DSL160"]}',
])
def test_a_mistyped_code_in_the_settings_names_the_file_and_the_key(tmp_path, table):
    write(tmp_path, {"train.py": SAME_GPU, "pyproject.toml": f"[tool.dslint]\n{table}\n"})
    proc = dslint_run(tmp_path, "check", "--no-cache")
    key = table.split(" ", 1)[0]
    assert_one_clean_error(proc, str(tmp_path / "pyproject.toml"), "unknown rule selector 'DSL160'", key, "DSL106")


@pytest.mark.parametrize("selector", ["DSL1", "DSL", "DSL10", "dsl101", "ALL"])
def test_prefixes_that_match_a_rule_are_valid(tmp_path, selector):
    write(tmp_path, {"train.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "--select", selector)
    assert proc.returncode == 1, proc.stderr
    assert codes(proc) == [("train.py", 12, "DSL101"), ("train.py", 14, "DSL101")]


# -- 2. the command line is a later layer than the file ------------------------------------------

def test_command_line_select_re_enables_what_the_file_ignores(tmp_path):
    write(tmp_path, {"train.py": SAME_GPU + "state = torch.load('ckpt.pt')\n",
                     "pyproject.toml": '[tool.dslint]\nignore = ["DSL101"]\n'})
    run = lambda *a: codes(dslint_run(tmp_path, "check", "--no-cache", "-o", "json", *a))
    assert {c for *_, c in run()} == {"DSL102"}
    assert {c for *_, c in run("--select", "DSL101")} == {"DSL101"}
    assert {c for *_, c in run("--extend-select", "DSL101")} == {"DSL101", "DSL102"}
    assert {c for *_, c in run("--ignore", "DSL102")} == set()  # the file's ignore still holds
    assert {c for *_, c in run("--select", "DSL1", "--ignore", "DSL102")} == {"DSL101"}


# -- 4. paths ---------------------------------------------------------------------------------

def test_a_missing_path_is_one_error_line_and_exit_2(tmp_path):
    proc = dslint_run(tmp_path, "check", "missing.py")
    assert_one_clean_error(proc, "missing.py")


def test_a_named_file_dslint_does_not_read_is_skipped_with_a_warning(tmp_path):
    write(tmp_path, {"README.md": "# Training\n\nRun `torchrun train.py`.\n", "notes.txt": "torch (\n",
                     "train.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "README.md", "notes.txt")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
    warnings = error_lines(proc)
    assert len(warnings) == 2 and "README.md" in warnings[0] and "notes.txt" in warnings[1], proc.stderr
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "README.md", "train.py")
    assert {c for *_, c in codes(proc)} == {"DSL101"}


def test_an_empty_folder_says_there_is_nothing_to_check(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = dslint_run(tmp_path, "check", "empty")
    assert proc.returncode == 0
    assert "dslint: warning: no files to check under empty" in proc.stderr


# -- 5. hierarchical settings -----------------------------------------------------------------

def test_each_file_gets_its_nearest_settings_however_it_is_named(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.dslint]\nignore = ["DSL101"]\n', "train.py": SAME_GPU,
                     "sub/pyproject.toml": '[tool.dslint]\nselect = ["DSL"]\n', "sub/train.py": SAME_GPU,
                     "other/pyproject.toml": '[project]\nname = "no-table-here"\n', "other/train.py": SAME_GPU})
    expected = [("sub/train.py", 12, "DSL101"), ("sub/train.py", 14, "DSL101")]
    for paths in (["."], ["train.py", "sub/train.py", "other/train.py"], ["sub", "other"], ["sub/train.py"]):
        proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", *paths)
        assert [(Path(f).as_posix(), r, c) for f, r, c in codes(proc)] == expected, paths
    proc = dslint_run(tmp_path / "sub", "check", "--no-cache", "-o", "json", "train.py", "../train.py")
    assert codes(proc) == [("train.py", 12, "DSL101"), ("train.py", 14, "DSL101")]


def test_a_nested_project_keeps_its_own_exclude(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.dslint]\n", "train.py": SAME_GPU,
                     "sub/pyproject.toml": '[tool.dslint]\nexclude = ["legacy"]\n', "sub/legacy/old.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", ".")
    assert {f for f, *_ in codes(proc)} == {"train.py"}


def test_config_replaces_discovery_and_isolated_ignores_every_file(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.dslint]\nignore = ["DSL101"]\n', "train.py": SAME_GPU,
                     "strict.toml": 'select = ["DSL1"]\n'})
    run = lambda *a: {c for *_, c in codes(dslint_run(tmp_path, "check", "--no-cache", "-o", "json", *a))}
    assert run() == set()
    assert run("--config", "strict.toml") == {"DSL101"}
    assert run("--isolated") == {"DSL101"}
    assert_one_clean_error(dslint_run(tmp_path, "check", "--config", "nope.toml"), "nope.toml")


# -- 6. noqa ---------------------------------------------------------------------------------------

def test_noqa_in_any_case_and_file_level_codes(tmp_path):
    lines = SAME_GPU.split("\n")
    lines[11] += "  # NOQA: DSL101"
    write(tmp_path, {"upper.py": "\n".join(lines),
                     "file_level.py": "# dslint: noqa: DSL102\n" + SAME_GPU + "x = torch.load('a.pt')\n",
                     "all_codes.py": "# dslint: noqa\n" + SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json")
    assert codes(proc) == [("file_level.py", 13, "DSL101"), ("file_level.py", 15, "DSL101"), ("upper.py", 14, "DSL101")]


# -- 7. DSL004 unused-noqa -----------------------------------------------------------------------

def test_unused_and_unknown_noqa_codes_are_reported_and_fixed(tmp_path):
    lines = SAME_GPU.split("\n")
    lines[11] += "  # noqa: DSL101"  # used
    lines[12] += "  # noqa: E501, DSL102"  # DSL102 unused; E501 is another linter's
    lines[14] += "  # noqa: DSL110"  # no such code
    lines[15] += "  # noqa: DSL101, DSL102 -- kept words"
    lines[16] += "  # noqa"  # bare: not read, not judged
    write(tmp_path, {"train.py": "\n".join(lines)})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "--select", "DSL004")
    assert codes(proc) == [("train.py", 15, "DSL004")]  # only the unknown code: DSL101/DSL102 did not run
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json")
    assert codes(proc) == [("train.py", 13, "DSL004"), ("train.py", 14, "DSL101"), ("train.py", 15, "DSL004"),
                           ("train.py", 16, "DSL004")]
    assert all(f["fix"] and f["fix"]["applicability"] == "safe" for f in json.loads(proc.stdout) if f["code"] == "DSL004")
    proc = dslint_run(tmp_path, "fix", "--no-cache")
    fixed = (tmp_path / "train.py").read_text().split("\n")
    assert fixed[11].endswith("  # noqa: DSL101")
    assert fixed[12].endswith(".cuda()  # noqa: E501")
    assert fixed[14] == lines[14].replace("  # noqa: DSL110", "")
    assert fixed[15].endswith("range(100):  # -- kept words")
    assert fixed[16].endswith("  # noqa")
    assert dslint_run(tmp_path, "check", "--no-cache", "-o", "json", "--select", "DSL004").stdout.strip() == "[]"


# -- 8. options ----------------------------------------------------------------------------------

def test_version_without_importing_package_metadata(tmp_path):
    for flag in ("--version", "-V"):
        proc = dslint_run(tmp_path, flag)
        assert proc.returncode == 0 and proc.stdout.strip() == f"dslint {dslint.__version__}"
    proc = subprocess.run([sys.executable, "-X", "importtime", DSLINT, "--version"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 0
    assert " importlib.metadata" not in proc.stderr


def test_stdin_is_checked_as_the_named_file_and_fix_prints_the_fixed_text(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.dslint]\nignore = ["DSL301"]\n'})
    proc = dslint_run(tmp_path, "check", "-", "--stdin-filename", "pkg/train.py", "-o", "json", stdin=LOADER)
    assert proc.returncode == 1, proc.stderr
    assert codes(proc) == [("pkg/train.py", 22, "DSL302")]
    assert not (tmp_path / "pkg").exists()
    proc = dslint_run(tmp_path, "fix", "-", "--stdin-filename", "pkg/train.py", stdin=LOADER)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('"""Launched with') and "aug_sampler.set_epoch(epoch)" in proc.stdout
    assert proc.stdout.count("\n") == LOADER.count("\n") + 1
    proc = dslint_run(tmp_path, "fix", "-", "--stdin-filename", "pkg/train.py", "--exit-non-zero-on-fix", stdin=LOADER)
    assert proc.returncode == 1
    proc = dslint_run(tmp_path, "fix", "-", "--stdin-filename", "clean.py", stdin="import torch\n")
    assert (proc.returncode, proc.stdout) == (0, "import torch\n")


@pytest.mark.parametrize("command", ["check", "fix"])
def test_check_and_fix_take_the_exit_options(tmp_path, command):
    write(tmp_path, {"train.py": SAME_GPU})  # findings without a fix
    assert dslint_run(tmp_path, command, "--no-cache").returncode == 1
    assert dslint_run(tmp_path, command, "--no-cache", "--exit-zero").returncode == 0
    write(tmp_path, {"train.py": LOADER})  # one safe fix (DSL302), DSL301 stays
    assert dslint_run(tmp_path, command, "--no-cache", "--fix", "--select", "DSL302",
                      "--exit-non-zero-on-fix").returncode == 1
    assert "aug_sampler.set_epoch(epoch)" in (tmp_path / "train.py").read_text()
    assert dslint_run(tmp_path, command, "--no-cache", "--fix", "--select", "DSL302",
                      "--exit-non-zero-on-fix").returncode == 0  # nothing left to fix
    # as in ruff, the two contradict each other: a usage error, not a silent choice
    assert_one_clean_error(dslint_run(tmp_path, command, "--exit-zero", "--exit-non-zero-on-fix"),
                           "--exit-zero cannot be combined with --exit-non-zero-on-fix")


def test_explain_and_rule_take_a_code_or_a_name(tmp_path):
    for args in (["explain", "DSL101"], ["explain", "hard-coded-device"], ["rule", "hard-coded-device"], ["rule", "dsl101"]):
        proc = dslint_run(tmp_path, *args)
        assert proc.returncode == 0 and proc.stdout.startswith("# DSL101: hard-coded-device"), args
    assert_one_clean_error(dslint_run(tmp_path, "rule", "hard-coded-devise"), "hard-coded-device")


def test_rule_all_prints_every_rule_doc_as_ruff_rule_all(tmp_path):
    listed = dslint_run(tmp_path, "rules").stdout.splitlines()
    proc = dslint_run(tmp_path, "rule", "--all")
    headings = [line.split(":")[0][2:] for line in proc.stdout.splitlines() if line.startswith("# DSL")]
    assert proc.returncode == 0 and headings == [line.split()[0] for line in listed]
    assert_one_clean_error(dslint_run(tmp_path, "rule"), "--all")


def test_probe_help_lists_its_options_and_takes_o(tmp_path):
    proc = dslint_run(tmp_path, "probe", "--help")
    assert proc.returncode == 0 and "--seconds" in proc.stdout and "--observation" in proc.stdout
    proc = dslint_run(tmp_path, "probe", "-o", "json", "--observation", "missing.json")
    assert proc.returncode == 2 and "unrecognized arguments" not in proc.stderr and "missing.json" in proc.stderr


# -- 9. settings files that are not settings -------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ('[tool.dslint]\nexclude = ["!"]\n', "exclude pattern '!'"),
    ("[tool]\ndslint = 5\n", "[tool.dslint] must be a table"),
    ('[tool]\ndslint = "x"\n', "[tool.dslint] must be a table"),
    ("tool = 5  # dslint reads this file\n", "'tool' must be a table"),
    ("[tool.dslint\nselect = 1\n", "invalid TOML"),
    ("[tool.dslint]\nnodes = 0\n", "'nodes' must be at least 1, not 0"),
    ("[tool.dslint]\nselect = 5\n", "'select' must be an array, not 5"),
])
def test_a_broken_settings_file_is_one_line_naming_it(tmp_path, text, words):
    write(tmp_path, {"pyproject.toml": text, "train.py": SAME_GPU})
    assert_one_clean_error(dslint_run(tmp_path, "check", "--no-cache"), str(tmp_path / "pyproject.toml"), words)


def test_a_broken_pyproject_that_is_not_for_dslint_does_not_stop_the_run(tmp_path):
    write(tmp_path, {"train.py": SAME_GPU, "template/pyproject.toml": "[project\nname = {{ name }}\n",
                     "template/train.py": SAME_GPU})
    proc = dslint_run(tmp_path, "check", "--no-cache", "-o", "json")
    assert proc.returncode == 1, proc.stderr
    assert len(codes(proc)) == 4


# -- 3. the wheel on the oldest and the newest Python ----------------------------------------------

PYTHONS = ["/root/.pyenv/versions/3.10.13/bin/python", "/root/.pyenv/versions/3.13.0/bin/python"]


def _lsp_frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


# initialize, initialized, shutdown, exit: the server answers the first and exits 0 after the last
LSP_SESSION = b"".join(_lsp_frame(m) for m in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"}))


@pytest.mark.slow
def test_the_wheel_installs_and_checks_on_the_oldest_and_newest_python(tmp_path):
    present = [p for p in PYTHONS if os.access(p, os.X_OK)]
    if not present:
        pytest.skip(f"neither {' nor '.join(PYTHONS)} is installed here")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path / "dist")],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("dslint-*.whl"))
    project = write(tmp_path / "project", {"train.py": SAME_GPU, "pyproject.toml": '[tool.dslint]\nselect = ["DSL1"]\n'})
    outcomes: dict = {}
    lsp_outcomes: dict = {}

    def install_and_check(python: str) -> None:
        venv = tmp_path / Path(python).parent.parent.name
        steps = [[python, "-m", "venv", str(venv)],
                 [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", str(wheel)]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=240)
            if done.returncode != 0:
                outcomes[python] = (None, done.stderr[-2000:])
                return
        done = subprocess.run([str(venv / "bin" / "dslint"), "check", "--no-cache", "-o", "concise", "."], cwd=project,
                              capture_output=True, text=True, timeout=120)
        outcomes[python] = (done.returncode, done.stdout + done.stderr)
        # `dslint lsp` works from a plain install (pygls and lsprotocol are core dependencies)
        served = subprocess.run([str(venv / "bin" / "dslint"), "lsp"], input=LSP_SESSION, cwd=project,
                                capture_output=True, timeout=120)
        lsp_outcomes[python] = (served.returncode, served.stdout.decode(errors="replace") + served.stderr.decode(errors="replace"))

    threads = [threading.Thread(target=install_and_check, args=(p,)) for p in present]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for python in present:
        code, output = outcomes[python]
        assert code == 1, f"{python}: {output}"
        assert output.count("DSL101") == 2 and "Traceback" not in output, f"{python}: {output}"
        code, output = lsp_outcomes[python]
        assert code == 0 and '"id": 1' in output and '"codeActionProvider"' in output, f"{python} lsp: {output}"
        assert '"name": "dslint"' in output and "Traceback" not in output, f"{python} lsp: {output}"
    shutil.rmtree(tmp_path / "dist", ignore_errors=True)
