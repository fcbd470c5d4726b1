"""The reporter contract, through the real console script: formats, summary, colour, output file."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

DSLINT = str(Path(sys.executable).parent / "dslint")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ANSI = re.compile(r"\033\[[0-9;]*m")

# DSL102 (safe fix) twice and DSL101 (no fix) once.
LOADS = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
a = torch.load("a.pt")
b = torch.load("b.pt")
torch.cuda.set_device(0)
"""


def run(root, *args, env=None, **kwargs):
    full_env = {k: v for k, v in os.environ.items() if k not in ("DSLINT_OUTPUT_FORMAT", "DSLINT_OUTPUT_FILE", "FORCE_COLOR", "NO_COLOR")}
    full_env.update(env or {})
    return subprocess.run([DSLINT, *args], cwd=root, capture_output=True, text=True, timeout=120, env=full_env,
                          **kwargs)


@pytest.fixture
def loads(tmp_path):
    (tmp_path / "train.py").write_text(LOADS)
    return tmp_path


@pytest.fixture
def sampler_example(tmp_path):
    """examples/unsharded_loader: DSL301 (unsafe fix) and DSL302 (safe fix)."""
    shutil.copy(EXAMPLES / "unsharded_loader" / "train.py", tmp_path / "train.py")
    return tmp_path


def findings(root, *args):
    proc = run(root, "check", "--no-cache", "-o", "json", *args)
    return json.loads(proc.stdout)


# -- the new formats --------------------------------------------------------------------------

def test_json_lines_is_one_json_object_per_finding_with_the_json_fields(loads):
    proc = run(loads, "check", "--no-cache", "-o", "json-lines")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert [json.loads(line) for line in lines] == findings(loads)
    assert len(lines) == 3


def test_junit_is_xml_with_a_failing_case_per_finding(loads):
    proc = run(loads, "check", "--no-cache", "-o", "junit")
    assert proc.returncode == 1
    root = ET.fromstring(proc.stdout.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("failures") == "3"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "train.py" and suite.get("tests") == "3"
    cases = suite.findall("testcase")
    assert [(c.get("name"), c.get("line")) for c in cases] == [("dslint.DSL102", "4"), ("dslint.DSL102", "5"),
                                                               ("dslint.DSL101", "6")]
    assert all(c.find("failure") is not None and c.find("failure").get("message") for c in cases)


def test_junit_without_findings_is_one_passing_case(tmp_path):
    (tmp_path / "clean.py").write_text("import torch\nprint(torch.ones(1))\n")
    proc = run(tmp_path, "check", "--no-cache", "-o", "junit")
    assert proc.returncode == 0
    root = ET.fromstring(proc.stdout.encode("utf-8"))
    assert root.get("failures") == "0" and len(root.iter("testcase").__next__().findall("failure")) == 0


def test_gitlab_code_quality_report_has_the_fields_gitlab_reads(loads):
    proc = run(loads, "check", "--no-cache", "-o", "gitlab")
    assert proc.returncode == 1
    issues = json.loads(proc.stdout)
    assert len(issues) == 3
    for issue in issues:
        assert issue["description"] and issue["check_name"].startswith("DSL")
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert issue["location"]["path"] == "train.py"
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert [i["location"]["lines"]["begin"] for i in issues] == [4, 5, 6]
    # the two DSL102 findings have the same message: fingerprints must still differ
    assert len({i["fingerprint"] for i in issues}) == 3
    again = json.loads(run(loads, "check", "--no-cache", "-o", "gitlab").stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]


def test_pylint_format_is_path_row_code_message(loads):
    proc = run(loads, "check", "--no-cache", "-o", "pylint")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("train.py:4: [DSL102] ")
    assert lines[2].startswith("train.py:6: [DSL101] ")
    assert "Found" not in proc.stderr  # a machine format: no summary


def test_grouped_format_is_a_file_header_then_indented_rows(tmp_path):
    (tmp_path / "a.py").write_text(LOADS)
    (tmp_path / "b.py").write_text(LOADS)
    proc = run(tmp_path, "check", "--no-cache", "-o", "grouped")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == "a.py:"
    assert lines[1].startswith("  4:5 DSL102 [*] ") and lines[1].endswith(" (warning)")
    assert lines[3].startswith("  6:1 DSL101 ")
    assert lines[4] == "" and lines[5] == "b.py:"
    assert "Found 6 problems in 2 checked files." in proc.stderr


def test_output_format_comes_from_the_environment_and_the_flag_wins(loads):
    env = {"DSLINT_OUTPUT_FORMAT": "pylint"}
    assert run(loads, "check", "--no-cache", env=env).stdout.startswith("train.py:4: [DSL102]")
    assert json.loads(run(loads, "check", "--no-cache", "-o", "json", env=env).stdout)[0]["code"] == "DSL102"
    bad = run(loads, "check", "--no-cache", env={"DSLINT_OUTPUT_FORMAT": "xml"})
    assert bad.returncode == 2 and "DSLINT_OUTPUT_FORMAT" in bad.stderr and "Traceback" not in bad.stderr


# -- marker, severity, summary ----------------------------------------------------------------

def test_fix_marker_and_severity_in_every_text_format(loads):
    full = run(loads, "check", "--no-cache").stdout
    assert "train.py:4:5: DSL102 [*] " in full and "(warning)" in full
    assert re.search(r"train.py:6:1: DSL101 \S+ \((error|warning)\)", full)  # no fix: no marker
    concise = run(loads, "check", "--no-cache", "-o", "concise").stdout.splitlines()
    assert concise[0].startswith("train.py:4:5: DSL102 [*] ") and concise[0].endswith(")")
    assert "[*]" not in concise[2]
    grouped = run(loads, "check", "--no-cache", "-o", "grouped").stdout
    assert grouped.count("[*]") == 2


def test_summary_counts_safe_fixes_and_hides_unsafe_ones(sampler_example):
    proc = run(sampler_example, "check", "--no-cache", "-o", "concise")
    assert proc.returncode == 1
    assert "Found 2 problems in 1 checked file." in proc.stderr
    assert ("[*] 1 fixable with `dslint fix` (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
            in proc.stderr)
    lines = proc.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["DSL301", "DSL302"]
    assert "[*]" not in lines[0] and "[*]" in lines[1]


def test_unsafe_fixes_without_fix_shows_them_as_available_and_writes_nothing(sampler_example):
    before = (sampler_example / "train.py").read_text()
    proc = run(sampler_example, "check", "--no-cache", "-o", "concise", "--unsafe-fixes")
    assert proc.returncode == 1
    assert all("[*]" in line for line in proc.stdout.splitlines())
    assert "[*] 2 fixable with `dslint fix --unsafe-fixes`." in proc.stderr and "hidden" not in proc.stderr
    assert (sampler_example / "train.py").read_text() == before



def test_unsafe_fixes_flag_names_plain_fix_when_every_available_fix_is_safe(loads):
    proc = run(loads, "check", "--no-cache", "-o", "concise", "--unsafe-fixes")
    assert proc.returncode == 1
    assert "[*] 2 fixable with `dslint fix`." in proc.stderr and "--unsafe-fixes`" not in proc.stderr

# -- statistics, show-fixes, output file --------------------------------------------------------

def test_statistics_counts_per_rule_most_first(loads):
    proc = run(loads, "check", "--no-cache", "--statistics")
    assert proc.returncode == 1
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [row[:2] for row in rows] == [["2", "DSL102"], ["1", "DSL101"]]
    assert rows[0][2].startswith("[*] ") and rows[1][2].startswith("[ ] ")
    stats = json.loads(run(loads, "check", "--no-cache", "--statistics", "-o", "json").stdout)
    assert [(s["code"], s["count"], s["fixable"]) for s in stats] == [("DSL102", 2, True), ("DSL101", 1, False)]


def test_show_fixes_lists_each_available_fix_as_a_diff_with_the_rule_doc(sampler_example):
    proc = run(sampler_example, "check", "--no-cache", "--show-fixes", "-o", "concise")
    assert proc.returncode == 1
    out = proc.stdout
    assert "Available fixes:" in out
    assert "+        aug_sampler.set_epoch(epoch)" in out
    assert "sampler=DistributedSampler(train_set)" in out and "[unsafe, with --unsafe-fixes]" in out
    assert "seeds its shuffle with `seed + epoch`" in out  # DSL302's *Why it hurts*


def test_fix_show_fixes_lists_what_was_fixed(loads):
    proc = run(loads, "fix", "--show-fixes")
    assert proc.returncode == 1  # DSL101 remains
    assert "Fixed 2 problems:" in proc.stderr and "- train.py:" in proc.stderr
    assert "    2 × DSL102 (" in proc.stderr
    assert 'map_location' in (loads / "train.py").read_text()


@pytest.mark.parametrize("command", [("check", "--no-cache"), ("fix", "--diff")])
def test_output_file_gets_the_report_and_stdout_stays_empty(loads, command):
    target = loads / "reports" / "dslint.txt"
    proc = run(loads, *command, "-o", "json" if command[0] == "check" else "full", "--output-file", str(target))
    assert proc.returncode == 1
    assert proc.stdout == ""
    text = target.read_text()
    if command[0] == "check":
        assert [f["code"] for f in json.loads(text)] == ["DSL102", "DSL102", "DSL101"]
    else:
        assert text.startswith("--- a/train.py")
    assert not [p for p in target.parent.iterdir() if p.name != "dslint.txt"]  # no temp file left


def test_output_file_from_the_environment(loads):
    proc = run(loads, "check", "--no-cache", env={"DSLINT_OUTPUT_FORMAT": "gitlab", "DSLINT_OUTPUT_FILE": "cq.json"})
    assert proc.returncode == 1 and proc.stdout == ""
    assert len(json.loads((loads / "cq.json").read_text())) == 3


def test_output_file_text_format_has_no_colour_and_summary_goes_to_stderr(loads):
    target = loads / "out.txt"
    proc = run(loads, "check", "--no-cache", "--color", "always", "--output-file", str(target))
    assert proc.returncode == 1 and proc.stdout == ""
    assert "DSL102" in target.read_text() and not ANSI.search(target.read_text())
    assert "Found 3 problems" in proc.stderr


# -- colour ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, env, coloured", [
    ((), {}, False),  # auto, not a terminal
    ((), {"FORCE_COLOR": "1"}, True),
    ((), {"NO_COLOR": "1"}, False),
    (("--color", "always"), {"NO_COLOR": "1"}, True),
    (("--color", "never"), {"FORCE_COLOR": "1"}, False),
])
def test_color_flag_and_environment(loads, args, env, coloured):
    for fmt in ("full", "concise", "grouped") if env.get("FORCE_COLOR") else ("full",):
        proc = run(loads, "check", "--no-cache", "-o", fmt, *args, env=env)
        assert proc.returncode == 1
        assert bool(ANSI.search(proc.stdout)) == coloured, (fmt, args, env)


def test_color_choice_is_validated(loads):
    proc = run(loads, "check", "--no-cache", "--color", "sometimes")
    assert proc.returncode == 2 and "--color" in proc.stderr and "Traceback" not in proc.stderr


def test_machine_formats_never_get_colour(loads):
    proc = run(loads, "check", "--no-cache", "-o", "json", "--color", "always")
    assert not ANSI.search(proc.stdout) and json.loads(proc.stdout)


# -- diff --------------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", ["git", "patch"])
def test_diff_of_a_file_without_final_newline_applies(tmp_path, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    # the last line, fixed by DSL102, has no newline
    (tmp_path / "train.py").write_text(LOADS.replace('torch.cuda.set_device(0)\n', 'c = torch.load("c.pt")'))
    proc = run(tmp_path, "fix", "--diff")
    assert proc.returncode == 1
    assert "\\ No newline at end of file" in proc.stdout
    patch = tmp_path / "fix.diff"
    patch.write_text(proc.stdout)
    if tool == "git":
        subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
        check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=tmp_path, capture_output=True, text=True)
    else:
        check = subprocess.run(["patch", "--dry-run", "-p1", "-i", str(patch)], cwd=tmp_path, capture_output=True,
                               text=True)
    assert check.returncode == 0, check.stderr + check.stdout


# -- carets ------------------------------------------------------------------------------------

def _caret_line(full: str, row: int) -> tuple[str, str]:
    lines = full.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{row} |"):
            return line, lines[i + 1]
    raise AssertionError(full)


def test_carets_are_aligned_after_wide_characters(tmp_path):
    source = LOADS.replace('a = torch.load("a.pt")', 'a = "日本語🔥"; b = torch.load("a.pt")')
    (tmp_path / "train.py").write_text(source)
    full = run(tmp_path, "check", "--no-cache", "--select", "DSL102").stdout
    code, carets = _caret_line(full, 4)
    # the code after "4 | " : 'a = "' (5) + 4 wide characters (8 columns) + '"; b = ' (7) = column 20
    assert code == '4 | a = "日本語🔥"; b = torch.load("a.pt")'
    assert carets == "  | " + " " * 20 + "^" * len('torch.load("a.pt")')


def test_carets_are_aligned_after_tabs(tmp_path):
    source = LOADS.replace('b = torch.load("b.pt")', 'if a:\n\tb = {"k":\t1} and torch.load("b.pt")')
    (tmp_path / "train.py").write_text(source)
    full = run(tmp_path, "check", "--no-cache", "--select", "DSL102").stdout
    code, carets = _caret_line(full, 6)
    assert "\t" not in code
    assert code == '6 |     b = {"k":   1} and torch.load("b.pt")'
    assert carets.index("^") == code.index("torch.load")
    assert carets.count("^") == len('torch.load("b.pt")')


def test_display_columns_count_wide_characters_twice_marks_not_at_all_and_expand_tabs():
    from dslint.report.text import expand_line

    shown, columns = expand_line("e\u0301\u4e2d\tx")  # é as e + combining acute, a CJK character, a tab
    assert shown == "e\u0301\u4e2d x"
    assert columns == [0, 1, 1, 3, 4, 5]  # the tab after column 3 fills to the stop at 4
    shown, columns = expand_line("\u2764\ufe0f=")  # a heart with the emoji variation selector
    assert columns[-1] == columns[-2] + 1 and columns[2] == columns[1]


# -- bad input must not crash a reporter (issue 14, items 9 and 10) -----------------------------

ALL_FORMATS = ["full", "concise", "grouped", "pylint", "json", "json-lines", "sarif", "github", "gitlab", "junit"]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_a_config_key_with_a_lone_surrogate_is_reported_in_every_format(tmp_path, fmt):
    (tmp_path / "ds_config.json").write_text('{\n  "train_batch_size": 8,\n  "zero_optimization": {"stage": 2},\n'
                                             '  "\\ud800": 1\n}\n')
    (tmp_path / "train.py").write_text(LOADS)
    proc = run(tmp_path, "check", "--no-cache", "-o", fmt, env={"PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "ds_config.json" in proc.stdout and "train.py" in proc.stdout


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path, fmt):
    if sys.platform != "linux":
        pytest.skip("needs a file system that takes any bytes in names")
    bad = os.fsdecode(b"train_\xff.py")
    (tmp_path / bad).write_text(LOADS)
    (tmp_path / "other.py").write_text(LOADS)
    proc = run(tmp_path, "check", "--no-cache", "-o", fmt, env={"PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "other.py" in proc.stdout
    if fmt == "sarif":
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in json.loads(proc.stdout)["runs"][0]["results"]}
        assert uris == {"train_%FF.py", "other.py"}
    elif fmt in ("full", "concise", "grouped", "pylint", "junit"):
        assert "train_\ufffd.py" in proc.stdout



def test_a_file_name_that_is_not_utf8_is_checked_with_the_cache_on_twice(tmp_path):
    if sys.platform != "linux":
        pytest.skip("needs a file system that takes any bytes in names")
    (tmp_path / os.fsdecode(b"train_\xff.py")).write_text(LOADS)
    (tmp_path / "other.py").write_text(LOADS)
    for _ in range(2):  # the first run writes the cache, the second reads it
        proc = run(tmp_path, "check", "-o", "concise", env={"PYTHONIOENCODING": "utf-8"})
        assert proc.returncode == 1, proc.stderr
        assert "internal error" not in proc.stderr
        assert "train_\ufffd.py" in proc.stdout and "other.py" in proc.stdout

def test_fix_summary_says_what_fix_could_still_do(sampler_example):
    proc = run(sampler_example, "fix", "-o", "concise")
    assert proc.returncode == 1
    assert "Fixed 1 problem in 1 file; 1 remaining." in proc.stderr
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in proc.stderr
