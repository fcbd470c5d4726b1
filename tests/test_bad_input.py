"""One bad input never ends the run: each problem becomes a finding or a line for its own file."""
from __future__ import annotations

import asyncio
import os
import random
import string
import time
from pathlib import Path

import pytest

from dslint import engine, fixes
from dslint.engine import checkers, project, results
from dslint.dsconfig_schema import suggest, validate
from dslint.dsconfig_schema.keyindex import locations
from dslint.dsconfig_schema.versions import resolve_version
from dslint.rules.registry import Report, Rule
from dslint.settings import Settings
from dslint.sources.dsconfig import parse_json

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

TRAIN = '''import torch
import torch.distributed as dist

dist.init_process_group(backend="nccl")
state = torch.load("ckpt.pt")
'''
HUGE = "7" * 5000  # past Python's 4,300-digit limit for int("...")


def check(root: Path, *paths: str, **settings):
    return engine.check([str(root / p) for p in paths] or [str(root)], Settings.model_validate(settings),
                        root=root, use_cache=False, jobs=1)


def rows(result) -> list[tuple]:
    return sorted((Path(f.path).name, f.code, f.span.start.row, f.span.start.column) for f in result.findings)


# -- the engine rule: any exception stays with its file ----------------------------------------

def test_a_crash_while_linting_one_file_is_one_internal_error_and_the_others_are_reported(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text(TRAIN)
    (tmp_path / "good.py").write_text(TRAIN)
    real = checkers.check_python

    def crashing(source, text, settings):
        if source.path.endswith("bad.py"):
            raise RuntimeError("boom\nsecond line")
        return real(source, text, settings)

    monkeypatch.setattr(checkers, "check_python", crashing)
    result = check(tmp_path)
    assert rows(result) == [("bad.py", "DSL003", 1, 1), ("good.py", "DSL102", 5, 9)]
    message = next(f.message for f in result.findings if f.code == "DSL003")
    assert "RuntimeError: boom second line" in message and "\n" not in message
    assert result.internal_error


def test_a_crash_while_reading_one_file_is_one_internal_error(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text(TRAIN)
    (tmp_path / "good.py").write_text(TRAIN)
    real = checkers.read_text

    def crashing(source, *args, **kwargs):
        if source.path.endswith("bad.py"):
            raise MemoryError()
        return real(source, *args, **kwargs)

    monkeypatch.setattr(checkers, "read_text", crashing)
    assert rows(check(tmp_path)) == [("bad.py", "DSL003", 1, 1), ("good.py", "DSL102", 5, 9)]


def test_a_crashing_setup_rule_is_one_internal_error_and_the_other_setup_rules_still_run(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(TRAIN)
    real = checkers.rules_of
    whole = results._whole_file()

    def broken(ctx):
        yield from ()
        raise KeyError("nothing here")

    def working(ctx):
        yield Report(whole, "a setup finding", path=str(tmp_path / "train.py"))

    def rules_of(kind, settings):
        if kind == "setup":
            return [Rule("DSL604", "broken", "setup", broken), Rule("DSL604", "working", "setup", working)]
        return real(kind, settings)

    monkeypatch.setattr(project, "rules_of", rules_of)  # the project phase's view of the rules
    result = check(tmp_path)
    codes = [f.code for f in result.findings]
    assert codes.count("DSL003") == 1 and "DSL604" in codes and "DSL102" in codes


# -- #8: a JSON integer longer than int() reads --------------------------------------------------

def test_a_json_integer_with_5000_digits_is_a_value_not_a_crash(tmp_path):
    (tmp_path / "numbers.json").write_text('{"n": %s}' % HUGE)
    (tmp_path / "ds_config.json").write_text(
        '{"train_batch_size": %s, "zero_optimization": {"stage": 2}, "steps_per_prnt": 1}' % HUGE)
    (tmp_path / "train.py").write_text(TRAIN)
    result = check(tmp_path)
    assert ("train.py", "DSL102", 5, 9) in rows(result)
    assert [f.code for f in result.findings if f.path.endswith("ds_config.json")] == ["DSL601"]  # still linted
    assert not result.internal_error


def test_parse_json_reads_a_huge_integer_as_a_float():
    doc = parse_json("ds_config.json", '{"train_batch_size": %s, "x": [1, %s]}' % (HUGE, HUGE))
    assert doc.value["train_batch_size"] == float("inf") and doc.value["x"][0] == 1
    assert doc.node(("x", 1)).value == float("inf")
    lenient = parse_json("ds_config.json", '{"train_batch_size": %s, // comment\n}' % HUGE)
    assert lenient.value["train_batch_size"] == float("inf") and not lenient.strict


def test_the_language_server_keeps_publishing_next_to_a_json_file_with_a_huge_integer(tmp_path):
    from dslint.lsp_lint import OpenDocument, WorkspaceLinter

    (tmp_path / "tokenizer.json").write_text('{"vocab": %s}' % HUGE)
    path = os.path.realpath(tmp_path / "train.py")
    outcome = WorkspaceLinter().lint([OpenDocument(path, TRAIN, 1, "python")])
    assert [f.code for f in outcome.findings[path]] == ["DSL102"] and outcome.errors == []


# -- #14: lone-CR line endings ---------------------------------------------------------------------

PYTHON_EXAMPLES = sorted(p for p in EXAMPLES.rglob("*.py"))


@pytest.mark.parametrize("example", PYTHON_EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_lone_cr_and_crlf_files_get_the_same_findings_as_lf(tmp_path, example, newline):
    text = example.read_text()
    (tmp_path / "lf").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "lf" / example.name).write_text(text)
    (tmp_path / "other" / example.name).write_bytes(text.replace("\n", newline).encode())
    expected = rows(check(tmp_path / "lf"))
    got = rows(check(tmp_path / "other"))
    assert got == expected
    assert not any(code == "DSL003" for _, code, _, _ in got)


def test_line_index_counts_rows_as_python_does():
    from dslint.textpos import LineIndex

    lines = LineIndex("a = 1\rb = 2\r\nc = 3\nd")
    assert lines.line_starts == [0, 6, 13, 19]
    assert [lines.line(r) for r in (1, 2, 3, 4)] == ["a = 1", "b = 2", "c = 3", "d"]
    assert lines.location(13).row == 3


# -- #15: an hjson-style config that tree-sitter reads differently --------------------------------

def test_a_missing_comma_after_a_block_still_gets_its_offload_findings(tmp_path):
    (tmp_path / "ds_config.json").write_text(
        '{\n  "train_batch_size": 8,\n  "zero_optimization": {\n    "stage": 2,\n'
        '    "offload_param": {"device": "cpu"}\n    "offload_optimizer": {"device": "nvme"}\n  }\n'
        '  "steps_per_print": 10\n}\n')
    codes = [f.code for f in check(tmp_path).findings]
    assert codes.count("DSL608") == 2 and "DSL003" not in codes


# -- #17: a deep expression must not lose the file's fixes ------------------------------------------

DEEP = {"sum": "TOTAL = " + " + ".join(["1"] * 325) + "\n",
        "brackets": "NESTED = " + "[" * 140 + "1" + "]" * 140 + "\n"}


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_a_deep_expression_elsewhere_in_the_file_keeps_the_fix(tmp_path, kind):
    text = (EXAMPLES / "unsharded_loader" / "train.py").read_text()
    (tmp_path / "train.py").write_text(text.replace("\n\nif __name__", "\n" + DEEP[kind] + "\n\nif __name__"))
    result = check(tmp_path)
    epoch = next(f for f in result.findings if f.code == "DSL302")
    edits = fixes.build_edits(epoch.fix, (tmp_path / "train.py").read_text())
    assert edits and "aug_sampler.set_epoch(epoch)" in edits[0].content
    outcome = engine.fix([str(tmp_path)], Settings(), root=tmp_path, write=False)
    assert outcome.applied >= 1 and outcome.dropped == []


def test_a_fix_that_still_recurses_too_deeply_is_reported_as_dropped(monkeypatch):
    def too_deep(text, params):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(fixes.FIXERS, "too-deep", too_deep)
    edits, why = fixes.build_edits_or_reason(fixes.make_fix("too-deep", "x"), "x = 1\n")
    assert edits is None and why == "the file nests too deeply for the rewriter"


# -- #7: a fix in a 1 MB file parses only the part it needs -------------------------------------------

HELPER = '''

def helper_{i}(x, y):
    """A helper."""
    total = 0
    for item in range(10):
        total += item * x + y
    return total
'''


def test_a_fix_in_a_1mb_file_gives_libcst_only_the_statements_it_needs(tmp_path, monkeypatch):
    import libcst

    small = (EXAMPLES / "unsharded_loader" / "train.py").read_text()
    head, tail = small.split("\n\nif __name__")
    body = "".join(HELPER.format(i=i) for i in range(7700))
    big = head + body + "\n\nif __name__" + tail
    assert len(big) > 1_000_000
    (tmp_path / "train.py").write_text(big)
    finding = next(f for f in check(tmp_path, "train.py").findings if f.code == "DSL302")
    parsed = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda source, *a, **k: parsed.append(len(source)) or real(source, *a, **k))
    fixes._WINDOWS.clear()  # (the check may have built this file's window already)
    started = time.perf_counter()
    edits = fixes.build_edits(finding.fix, big)
    elapsed = time.perf_counter() - started
    fixed, _ = fixes.apply_edits(big, edits)
    assert parsed and max(parsed) < 20_000
    small_fixed, _ = fixes.apply_edits(small, fixes.build_edits(finding.fix, small))  # (same rows: the body comes after)
    assert "aug_sampler.set_epoch(epoch)" in small_fixed
    assert fixed.replace(body, "") == small_fixed
    assert elapsed < 30  # (the whole-file parse took ~25 s per finding)


def test_the_window_fix_equals_the_whole_file_fix_on_a_file_just_over_the_threshold(tmp_path, monkeypatch):
    small = (EXAMPLES / "unsharded_loader" / "train.py").read_text()
    head, tail = small.split("\n\nif __name__")
    body = "".join(HELPER.format(i=i) for i in range(800))
    big = head + body + "\n\nif __name__" + tail
    assert len(big) > fixes.WINDOW_MIN_CHARS
    (tmp_path / "train.py").write_text(big)
    for finding in [f for f in check(tmp_path, "train.py").findings if f.fix]:
        windowed = fixes.apply_edits(big, fixes.build_edits(finding.fix, big))[0]
        monkeypatch.setattr(fixes, "WINDOW_MIN_CHARS", 10 ** 9)
        whole = fixes.apply_edits(big, fixes.build_edits(finding.fix, big))[0]
        monkeypatch.setattr(fixes, "WINDOW_MIN_CHARS", 100_000)
        assert windowed == whole != big


# -- #6: the did-you-mean -------------------------------------------------------------------------

def candidate_names() -> list[str]:
    """Every key DeepSpeed accepts somewhere (the did-you-mean's widest candidate list)."""
    return sorted({p[-1] for ps in locations(resolve_version(None)).values() for p in ps if isinstance(p[-1], str)})


def _brute_force(key, names):
    """The old nearest(): every candidate scored."""
    names = sorted(set(names))
    lowered = [n for n in names if n.lower() == key.lower()]
    if len(lowered) == 1:
        return lowered[0], True
    for variant in ("stage3_" + key, key.removeprefix("stage3_")):
        if variant != key and variant in names:
            return variant, True
    scored = sorted(((suggest._close(key, n), n) for n in names), reverse=True)
    if not scored or scored[0][0] <= 0.0:
        return None, False
    return scored[0][1], scored[0][0] - (scored[1][0] if len(scored) > 1 else 0.0) >= 0.05


def typo(rng: random.Random, word: str) -> str:
    """`word` with one to three edits (substitution, deletion, insertion, adjacent swap)."""
    chars = list(word)
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(max(1, len(chars)))
        op = rng.randrange(4)
        if op == 0 and chars:
            chars[i] = rng.choice(string.ascii_lowercase)
        elif op == 1 and chars:
            del chars[i]
        elif op == 2:
            chars.insert(i, rng.choice(string.ascii_lowercase + "_"))
        elif i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def test_the_bucketed_did_you_mean_suggests_exactly_what_scoring_every_candidate_does():
    rng = random.Random(7)
    names = candidate_names()
    keys = [typo(rng, rng.choice(names)) for _ in range(600)]
    keys += ["".join(rng.choice(string.ascii_lowercase + "_") for _ in range(rng.randrange(1, 45))) for _ in range(200)]
    for candidates in (names, names[:25]):
        assert [suggest.nearest(k, candidates) for k in keys] == [_brute_force(k, candidates) for k in keys]


def test_banded_distance_agrees_with_the_full_one():
    rng = random.Random(3)
    for _ in range(2000):
        a = "".join(rng.choice("abc_") for _ in range(rng.randrange(0, 12)))
        b = "".join(rng.choice("abc_") for _ in range(rng.randrange(0, 12)))
        full = suggest.edit_distance(a, b)
        for limit in (0, 1, 2, 3):
            assert suggest.distance_within(a, b, limit) == (full if full <= limit else None)


def test_a_very_long_key_gets_no_suggestion_and_costs_nothing(monkeypatch):
    monkeypatch.setattr(suggest, "_close", lambda *a: pytest.fail("a 1 MB key must not be scored"))
    assert suggest.nearest("k" * 1_000_000, candidate_names()) == (None, False)


def test_the_did_you_mean_runs_only_when_dsl601_is_enabled(tmp_path, monkeypatch):
    calls = []
    real = validate.nearest
    monkeypatch.setattr(validate, "nearest", lambda key, names: calls.append(key) or real(key, names))
    (tmp_path / "ds_config.json").write_text('{"train_batch_size": 8, "zero_optimization": {"stage": 2}, "gradient_clipingg": 1}')
    check(tmp_path, select=["DSL602", "DSL603"])
    assert calls == []
    result = check(tmp_path)
    assert calls and any("gradient_clipping" in f.message for f in result.findings if f.code == "DSL601")


def test_a_thousand_unknown_keys_take_well_under_a_second_each():
    rng = random.Random(11)
    config = {"train_batch_size": 8}
    config.update({typo(rng, rng.choice(candidate_names())) + str(i): 1 for i in range(1000)})
    started = time.perf_counter()
    problems = validate.validate_config(config)
    elapsed = time.perf_counter() - started
    assert len([p for p in problems if p.kind == "unknown-key"]) >= 900
    assert elapsed < 10  # 32 s before the change (on an idle machine); ~0.2 s after


# -- #19: the language server says one line ----------------------------------------------------------

def test_a_failing_folder_is_one_line_and_the_other_folders_are_still_linted(tmp_path, monkeypatch):
    from dslint.lsp_lint import OpenDocument, WorkspaceLinter

    for name in ("bad", "good"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.py").write_text(TRAIN)
    real = engine.check

    def crashing(paths, settings, **kwargs):
        if str(kwargs["root"]).endswith("bad"):
            raise ValueError("the engine broke\nwith a second line")
        return real(paths, settings, **kwargs)

    monkeypatch.setattr(engine, "check", crashing)
    bad, good = (os.path.realpath(tmp_path / n / "train.py") for n in ("bad", "good"))
    outcome = WorkspaceLinter().lint([OpenDocument(bad, TRAIN, 1, "python"), OpenDocument(good, TRAIN, 1, "python")])
    assert [f.code for f in outcome.findings[good]] == ["DSL102"] and outcome.findings[bad] == []
    assert len(outcome.errors) == 1 and "\n" not in outcome.errors[0]
    assert "ValueError: the engine broke with a second line" in outcome.errors[0]
    assert "Traceback" in outcome.tracebacks[0]


def test_the_server_logs_one_line_when_a_lint_fails_and_the_traceback_only_at_debug(monkeypatch, caplog):
    pytest.importorskip("pygls")
    from dslint.lsp_lint import OpenDocument
    from dslint.lsp_server import DslintLanguageServer

    server = DslintLanguageServer()
    logged = []
    monkeypatch.setattr(server, "window_log_message", lambda params: logged.append(params))
    monkeypatch.setattr(server, "window_show_message", lambda params: logged.append(params))
    monkeypatch.setattr(server, "refresh_roots", lambda: None)
    monkeypatch.setattr(server, "open_documents", lambda: {"file:///x/train.py": OpenDocument("/x/train.py", TRAIN, 1, "python")})

    def crash(docs, targets):
        raise RuntimeError("rule exploded")

    monkeypatch.setattr(server.linter, "lint", crash)
    with caplog.at_level("DEBUG", logger="dslint.lsp_server"):
        asyncio.run(server._lint_once(None))
    assert len(logged) == 1
    assert logged[0].message == "dslint: internal error while linting: RuntimeError: rule exploded; please report it"
    assert any("Traceback" in (r.exc_text or "") or r.exc_info for r in caplog.records if r.levelname == "DEBUG")
    server.executor.shutdown(wait=False)


def test_lone_cr_noqa_and_code_frame_count_lines_as_python(tmp_path):
    """A `# noqa` on line 12 of a lone-CR file silences line 12 (not row 1), and the code frame
    shows the finding's own line."""
    import subprocess
    import sys

    source = Path(__file__).resolve().parent.parent / "examples" / "ddp_same_gpu" / "train.py"
    lines = source.read_text().split("\n")
    row = next(i for i, line in enumerate(lines, 1) if "set_device(0)" in line)
    plain = "\r".join(lines)
    (tmp_path / "train.py").write_bytes(plain.encode())
    run = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "--select", "DSL101", "train.py"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert f"train.py:{row}:" in run.stdout and f"{row} |     torch.cuda.set_device(0)" in run.stdout
    lines[row - 1] += "  # noqa: DSL101"
    (tmp_path / "train.py").write_bytes("\r".join(lines).encode())
    quiet = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "--select", "DSL101", "train.py"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert f"train.py:{row}:" not in quiet.stdout and "device_ids=[0]" in quiet.stdout  # only its own line
