#!/usr/bin/env python3
"""Where a cold check spends its time, phase by phase, on one process.

    .venv/bin/python bench/phase_times.py /tmp/dse [--runs 3]

For every Python file with framework words (the engine's prefilter): `ast.parse`, the one-walk
script facts, each Python rule (the semantic model is built lazily inside the rules that ask,
so its cost shows in theirs and in "semantic model (all scopes)", measured separately on fresh
facts), the module summary for the program layer and the summary extractors the engine runs
with it (the ten costliest rules and extractors are shown under their phase); then the project phase (linking modules into
programs, setup rules, contextual findings decided) over the whole tree. Each row is the median
of `--runs` runs; the total of the per-file rows is compared with `ast.parse` alone.
"""
from __future__ import annotations

import argparse
import ast
import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dslint import engine  # noqa: E402
from dslint.facts.bindings import iter_scopes, semantic_model  # noqa: E402
from dslint.facts.module_summary import summarise_module  # noqa: E402
from dslint.facts.script import build_script_facts  # noqa: E402
from dslint.facts.summary import SUMMARY_EXTRACTORS  # noqa: E402
from dslint.rules.context import PythonContext  # noqa: E402
from dslint.rules.registry import all_rules  # noqa: E402
from dslint.settings import Settings  # noqa: E402


def one_run(files: list[tuple[str, str]], root: Path) -> collections.Counter:
    settings = Settings()
    rules = [r for r in all_rules().values() if r.kind == "python"]
    times: collections.Counter = collections.Counter()
    clock = time.perf_counter
    for path, text in files:
        start = clock()
        tree = ast.parse(text)
        parsed = clock()
        facts = build_script_facts(path, text, tree)
        walked = clock()
        times["ast.parse"] += parsed - start
        times["script facts (one walk)"] += walked - parsed
        ctx = PythonContext(facts=facts, settings=settings)
        before_rules = clock()
        for rule in rules:
            rule_start = clock()
            try:
                for _ in rule.check(ctx):
                    pass
            except Exception:  # the engine reports these as DSL003; not our business here
                pass
            times[f"  rule {rule.code}"] += clock() - rule_start
        after_rules = clock()
        times["python rules (semantic model on demand)"] += after_rules - before_rules
        summarise_module(facts)
        extras_start = clock()
        times["module summary"] += extras_start - after_rules
        for name, extract in SUMMARY_EXTRACTORS.items():
            extra_start = clock()
            try:
                extract(facts)
            except Exception:
                pass
            times[f"  summary extra {name}"] += clock() - extra_start
        times["summary extras (all)"] += clock() - extras_start
        fresh = build_script_facts(path, text, tree)
        model_start = clock()
        for _ in iter_scopes(semantic_model(fresh)):
            pass
        times["semantic model (all scopes)"] += clock() - model_start
    start = clock()
    engine.check([str(root)], settings, root=root, use_cache=False, jobs=1)
    times["whole check (1 process)"] += clock() - start
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files = []
    for path in sorted(args.root.rglob("*.py")):
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if engine.FRAMEWORK_WORDS.search(text.encode("utf-8", "surrogatepass")):
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            files.append((str(path), text))
    runs = [one_run(files, args.root) for _ in range(args.runs)]
    rows = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    floor = rows["ast.parse"]
    lines = sum(text.count("\n") for _, text in files)
    print(f"{len(files)} files with framework words, {lines:,} lines; median of {args.runs} runs\n")
    print("| phase | s | x ast.parse |\n|---|---:|---:|")
    # the per-rule and per-extractor rows: the ten costliest of each, under their phase's row
    detail = {key for key in rows if key.startswith("  ")}
    shown = set()
    for prefix in ("  rule ", "  summary extra "):
        shown |= set(sorted((k for k in detail if k.startswith(prefix)), key=lambda k: -rows[k])[:10])
    for key, value in sorted(rows.items(), key=lambda kv: _order(kv[0], rows)):
        if key in detail and key not in shown:
            continue
        print(f"| {key} | {value:.3f} | {value / floor:.2f} |")
    return 0


def _order(key: str, rows: dict) -> tuple:
    """Phases in measuring order, each phase's detail rows below it, costliest first."""
    phases = [k for k in rows if not k.startswith("  ")]
    if key.startswith("  rule "):
        return (phases.index("python rules (semantic model on demand)"), 1, -rows[key])
    if key.startswith("  summary extra "):
        return (phases.index("summary extras (all)"), 1, -rows[key])
    return (phases.index(key), 0, 0)


if __name__ == "__main__":
    raise SystemExit(main())
