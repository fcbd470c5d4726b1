"""Fix edits built with the check (in the worker that read the file, one libcst parse per file),
and the fix loop that re-checks only the files it changed."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import libcst
import pytest

from dslint import engine, fixes
from dslint.engine import checkers, fixloop, parallel
from dslint.report import TextSource
from dslint.report.json_format import render_json
from dslint.settings import Settings
from dslint.sources.discover import SourceFile

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

def _evaluations(names) -> str:
    """DSL401 (a per-file rule, unsafe fix) once per name."""
    return '"""Evaluations that record autograd graphs."""\nimport torch\nimport torch.nn.functional as F\n' + "".join(
        f"\n\ndef evaluate_{n}(model, loader):\n    model.eval()\n    total = 0.0\n    for x, y in loader:\n"
        f"        total = total + F.cross_entropy(model(x), y)\n    model.train()\n    return total / len(loader)\n"
        for n in names)


THREE_FIXES = _evaluations("abc")

# DSL102 waits for the project phase (is the script run by several processes?)
TORCH_LOADS = """\
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
model = torch.nn.Linear(4, 4)
a = torch.load("a.pt")
b = torch.load("b.pt")
c = torch.load("c.pt")
"""

SAFE_AND_UNSAFE = EXAMPLES / "unsharded_loader" / "train.py"  # DSL302 (safe, per file), DSL301 (unsafe, decided later)


def _json(findings, texts) -> list:
    out = io.StringIO()
    render_json(findings, out, TextSource(texts))
    return json.loads(out.getvalue())


def _without_prebuilt(findings) -> list:
    for finding in findings:
        finding.built = None
    return findings


def _check(root: Path, prebuilt: bool = True, **options):
    """The check's result and its JSON report (findings' paths are relative to `root`)."""
    old = os.getcwd()
    os.chdir(root)
    try:
        result = engine.check(["."], Settings(), root=root, use_cache=False, **options)
        if not prebuilt:
            _without_prebuilt(result.findings)
        return result, _json(result.findings, result.texts)
    finally:
        os.chdir(old)


@pytest.mark.parametrize("jobs", [1, 2])
def test_json_edits_match_building_them_in_the_parent(tmp_path, jobs):
    project = tmp_path / "p"
    project.mkdir()
    (project / "train.py").write_text(THREE_FIXES)
    (project / "load.py").write_text(TORCH_LOADS)
    for root in (EXAMPLES, project):
        result, prebuilt = _check(root, edits=True, jobs=jobs)
        fixable = [f for f in result.findings if f.fix is not None]
        assert fixable, root
        # (the setup phase's findings, made after the workers, are built when reported)
        assert len([f for f in fixable if f.built is not None]) >= min(3, len(fixable) - 2), root
        fixes._PARSED.clear()
        _, old_path = _check(root, prebuilt=False)
        assert prebuilt == old_path
        assert sum(1 for item in prebuilt if item["fix"]) >= min(3, len(fixable))


def test_three_fixes_in_one_file_cost_one_libcst_parse(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(THREE_FIXES)
    calls = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda *a, **k: calls.append(1) or real(*a, **k))
    fixes._PARSED.clear()
    source = SourceFile(str(tmp_path / "train.py"), str(tmp_path / "train.py"), "python")
    result = checkers.check_file(source, Settings(), edits=True)
    built = [f.built for f in result.findings if f.code == "DSL401"]
    assert len(built) == 3 and all(b is not None and b[1] for b in built)
    assert len(calls) == 1


def test_no_edits_unless_asked(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(THREE_FIXES)
    source = SourceFile(str(tmp_path / "train.py"), str(tmp_path / "train.py"), "python")
    monkeypatch.setattr(fixes, "build_edits_or_reason", lambda *a: pytest.fail("edits built for a plain check"))
    result = checkers.check_file(source, Settings())
    assert [f.built for f in result.findings if f.fix] == [None, None, None]


def test_safe_only_builds_no_unsafe_edits(tmp_path):
    (tmp_path / "train.py").write_text(THREE_FIXES)
    for path in (tmp_path / "train.py", SAFE_AND_UNSAFE):
        source = SourceFile(str(path), str(path), "python")
        fixable = [f for f in checkers.check_file(source, Settings(), edits="safe").findings if f.fix is not None]
        assert fixable
        for finding in fixable:
            wanted = finding.fix.applicability.value == "safe" and finding.needs is None
            assert (finding.built is not None) == wanted
    assert any(f.built for f in checkers.check_file(source, Settings(), edits="safe").findings)


def test_project_phase_candidates_are_built_for_reports_and_otherwise_later_once_per_file(tmp_path, monkeypatch):
    (tmp_path / "load.py").write_text(TORCH_LOADS)
    source = SourceFile(str(tmp_path / "load.py"), str(tmp_path / "load.py"), "python")
    reported = [f for f in checkers.check_file(source, Settings(), edits=True).findings if f.code == "DSL102"]
    assert len(reported) == 3 and all(f.needs is not None and f.built and f.built[1] for f in reported)
    candidates = [f for f in checkers.check_file(source, Settings(), edits="safe").findings if f.code == "DSL102"]
    assert len(candidates) == 3 and all(f.needs is not None and f.built is None for f in candidates)
    calls = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda *a, **k: calls.append(1) or real(*a, **k))
    fixes._PARSED.clear()
    report = _json(candidates, {str(tmp_path / "load.py"): TORCH_LOADS})
    assert [len(item["fix"]["edits"]) for item in report] == [1, 1, 1] and len(calls) == 1


def test_prebuilt_edits_are_not_used_on_another_text(tmp_path):
    (tmp_path / "train.py").write_text(THREE_FIXES)
    source = SourceFile(str(tmp_path / "train.py"), str(tmp_path / "train.py"), "python")
    finding = next(f for f in checkers.check_file(source, Settings(), edits=True).findings if f.code == "DSL401")
    shifted = "# a comment that moves every offset\n" + THREE_FIXES
    assert fixes.edits_for(finding, THREE_FIXES) == list(finding.built[1])
    assert fixes.edits_for(finding, shifted) == fixes.build_edits(finding.fix, shifted)
    assert fixes.edits_for(finding, shifted) != list(finding.built[1])


def test_cached_result_without_edits_is_checked_again_when_edits_are_needed(tmp_path):
    (tmp_path / "train.py").write_text(THREE_FIXES)
    cache = fixloop._Unchanged(Settings())
    sources = [SourceFile(str(tmp_path / "train.py"), str(tmp_path / "train.py"), "python")]
    first = parallel.check_files(sources, Settings(), cache=cache)[0]
    assert all(f.built is None for f in first.findings)
    assert parallel.check_files(sources, Settings(), cache=cache)[0] is first  # a plain run reuses it
    again = parallel.check_files(sources, Settings(), cache=cache, edits=True)[0]
    assert again is not first and all(f.built is not None for f in again.findings if f.fix)


def _whole_tree_every_pass(monkeypatch):
    """The fix loop as it was: every pass (and the final check) re-checks every file."""
    monkeypatch.setattr(fixloop._Unchanged, "get", lambda self, key: None)


def _fix(root: Path, **options):
    old = os.getcwd()
    os.chdir(root)
    try:
        return engine.fix(["."], Settings(), root=root, **options)
    finally:
        os.chdir(old)


@pytest.mark.parametrize("write", [False, True])
def test_fix_outcome_is_the_same_as_rechecking_the_whole_tree(tmp_path, monkeypatch, write):
    import shutil

    trees = []
    for name in ("new", "old"):
        shutil.copytree(EXAMPLES, tmp_path / name)
        (tmp_path / name / "multi" / "train.py").parent.mkdir()
        (tmp_path / name / "multi" / "train.py").write_text(THREE_FIXES)
        trees.append(tmp_path / name)
    new = _fix(trees[0], write=write, unsafe=True)
    with monkeypatch.context() as patch:
        _whole_tree_every_pass(patch)
        old = _fix(trees[1], write=write, unsafe=True)

    def relative(changed, root):
        return {os.path.relpath(p, os.path.realpath(root)): texts for p, texts in changed.items()}

    assert relative(new.changed, trees[0]) == relative(old.changed, trees[1])
    assert len(new.changed) >= 3 and new.applied == old.applied and new.dropped == old.dropped
    assert [(f.path, f.code, f.span) for f in new.remaining.findings] == \
           [(f.path, f.code, f.span) for f in old.remaining.findings]
    assert new.remaining.files == old.remaining.files
    if write:
        for path in new.changed:
            rel = os.path.relpath(path, os.path.realpath(trees[0]))
            assert (trees[0] / rel).read_text() == (trees[1] / rel).read_text() == new.changed[path][1]
    again = _fix(trees[0], write=False, unsafe=True) if write else None
    assert again is None or again.changed == {}  # a second fix changes nothing


@pytest.mark.parametrize("write", [False, True])
def test_later_passes_recheck_only_the_changed_files(tmp_path, monkeypatch, write):
    import shutil

    shutil.copytree(EXAMPLES, tmp_path / "tree")
    root = tmp_path / "tree"
    passes: list[list[str]] = []
    real_check, real_check_file = fixloop.check, parallel.check_file

    def counting_check(*args, **kwargs):
        passes.append([])
        return real_check(*args, **kwargs)

    def counting_check_file(source, *args, **kwargs):
        passes[-1].append(source.abspath)
        return real_check_file(source, *args, **kwargs)

    monkeypatch.setattr(fixloop, "check", counting_check)
    monkeypatch.setattr(parallel, "check_file", counting_check_file)
    monkeypatch.setattr(parallel, "PARALLEL_THRESHOLD", 10 ** 6)  # counted in this process
    outcome = _fix(root, write=write, unsafe=True)
    assert len(outcome.changed) >= 3
    assert len(passes) >= 2 and len(passes[0]) > 2 * len(outcome.changed)
    for later in passes[1:]:
        assert later and set(later) <= set(outcome.changed)


def test_window_of_a_big_file_decorates_the_function_it_was_asked_to(monkeypatch):
    """An insertion where the window left functions out (a decorator before `def target`, after
    a left-out `def f49`) must not land at the end of the statement before them."""
    import libcst as cst

    @fixes.codemod_fixer("test-decorate-at-row")
    def decorate(module, positions, params):
        target = fixes.node_at(positions, cst.FunctionDef, params["row"], 1)

        class Decorate(cst.CSTTransformer):
            def leave_FunctionDef(self, original, updated):
                if original is not target:
                    return updated
                return updated.with_changes(decorators=[cst.Decorator(cst.Name("deco")), *updated.decorators])

        return None if target is None else module.visit(Decorate())

    monkeypatch.setitem(fixes.FIXERS, "test-decorate-at-row", fixes.FIXERS.pop("test-decorate-at-row"))
    monkeypatch.setattr(fixes, "WINDOW_MIN_CHARS", 200)  # the window, on a small file
    text = "import os\n\n" + "".join(f"def f{i}():\n    return {i}\n\n" for i in range(50)) + "def target():\n    return 0\n"
    row = text[:text.index("def target")].count("\n") + 1
    new, _ = fixes.apply_edits(text, fixes.FIXERS["test-decorate-at-row"](text, {"row": row}))
    assert new.count("@deco") == 1 and "@deco\ndef target():" in new
    assert new.replace("@deco\n", "") == text


# -- the window: a codemod sees the statements its fix needs, and writes what the whole file would

LONG_TRAINER = '''\
"""A trainer whose fixes sit in one long function among others."""
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
{helpers}

def main(dataset, model):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=8, shuffle=True)
    state = torch.load("ckpt.pt")
    model.load_state_dict(state)
    for step in range(3):
        # a comment between statements
        x = torch.ones(2)
        if step:
            x = x + 1
        else:
            x = x - 1
    for epoch in range(10):
        for batch in loader:
            model(batch).sum().backward()
    return model


if __name__ == "__main__":
    main(None, None)
'''


def _window_and_whole(finding, text, monkeypatch):
    fixes._WINDOWS.clear()
    fixes._PARSED.clear()
    windowed = fixes.build_edits(finding.fix, text)
    monkeypatch.setattr(fixes, "WINDOW_MIN_CHARS", 10 ** 9)
    whole = fixes.build_edits(finding.fix, text)
    monkeypatch.setattr(fixes, "WINDOW_MIN_CHARS", 0)
    return windowed, whole


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) + ["long-trainer", "long-trainer-crlf"])
def test_window_edits_equal_the_whole_file_edits(example, tmp_path, monkeypatch):
    if example.startswith("long-trainer"):
        helpers = "".join(f"\n\ndef helper_{i}(x):\n    y = x * {i}\n    return y\n" for i in range(30))
        text = LONG_TRAINER.format(helpers=helpers)
        (tmp_path / "train.py").write_bytes((text.replace("\n", "\r\n") if example.endswith("crlf") else text).encode())
        (tmp_path / "run.sh").write_text("torchrun --nproc_per_node=4 train.py\n")
        root = tmp_path
    else:
        root = EXAMPLES / example
    result = engine.check([str(root)], Settings(), use_cache=False)
    fixable = [f for f in result.findings if f.fix is not None and f.fix.fixer in fixes.CODEMODS]
    if example.startswith("long-trainer"):
        assert {f.code for f in fixable} >= {"DSL102", "DSL301"}
    for finding in fixable:
        text = Path(finding.path).read_bytes().decode()
        assert fixes._Window.build(text, fixes._rows_of(dict(finding.fix.params))) is not None
        windowed, whole = _window_and_whole(finding, text, monkeypatch)
        assert windowed == whole, (finding.code, finding.fix.fixer)


def test_the_window_leaves_out_functions_and_statements_the_fix_does_not_need():
    helpers = "".join(f"\n\ndef helper_{i}(x):\n    y = x * {i}\n    return y\n" for i in range(30))
    text = LONG_TRAINER.format(helpers=helpers)
    row = text[:text.index("state = torch.load")].count("\n") + 1
    window = fixes._Window.build(text, {row})
    kept = "".join(window.window_lines)
    assert "state = torch.load" in kept and "import torch.distributed as dist" in kept
    assert "def helper_" not in kept and "model(batch).sum().backward()" not in kept
    assert "def main(dataset, model):" in kept and "model.load_state_dict(state)" in kept  # (the next statement)
    assert len(kept) < len(text) / 4
