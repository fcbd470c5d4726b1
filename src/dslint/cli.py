"""The `dslint` command line. Thin: parse options, call the engine, pick a reporter.

Exit codes: 0 no findings, 1 findings, 2 usage or internal error (never 1 for a crash).
"""
from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import __version__
from .model import UsageError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Lint distributed PyTorch training setups: scripts, DeepSpeed configs and launch commands together.",
                  context_settings={"help_option_names": ["-h", "--help"]})

FORMAT_HELP = "full (code frames), concise (one line each), json (ruff-compatible), sarif (2.1.0), github (annotations)"


def _codes(values: Optional[List[str]]) -> Optional[list[str]]:
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def _settings(paths: list[str], select, ignore, extend_select, facts: dict):
    from .settings import load_settings

    start = Path(paths[0]) if len(paths) == 1 and Path(paths[0]).exists() else Path.cwd()
    overrides = {"select": _codes(select), "ignore": _codes(ignore), "extend-select": _codes(extend_select), **facts}
    settings, pyproject = load_settings(start, overrides)
    return settings, pyproject


def _progress_factory(enabled: bool):
    if not enabled or not sys.stderr.isatty():
        return None

    def factory(total: int):
        if total < 200:
            return None
        done = [0]

        def tick(count: int) -> None:
            done[0] += count
            sys.stderr.write(f"\rdslint: checked {done[0]}/{total} files")
            if done[0] >= total:
                sys.stderr.write("\r\033[K")
            sys.stderr.flush()

        return tick

    return factory


def _color(fmt: str) -> bool:
    return fmt in ("full", "concise") and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _unified_diff(changed: dict, root: Path) -> str:
    chunks = []
    for abspath, (old, new) in sorted(changed.items()):
        try:
            name = os.path.relpath(abspath, root)
        except ValueError:
            name = abspath
        chunks.append("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}")))
    return "".join(chunks)


@app.command()
def check(
    paths: List[str] = typer.Argument(None, help="Files or folders to check (default: .)"),
    output_format: str = typer.Option("full", "--output-format", "-o", help=FORMAT_HELP),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes (like `dslint fix`)."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix: also apply unsafe fixes."),
    diff: bool = typer.Option(False, "--diff", help="With --fix: print the fixes as a unified diff, write nothing."),
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these codes or prefixes (DSL1, DSL101)."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Add codes to the selection."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write .dslint_cache."),
    show_setup: bool = typer.Option(False, "--show-setup", help="Print the training setup dslint inferred."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print findings only, no summary."),
    nproc_per_node: Optional[int] = typer.Option(None, "--nproc-per-node", help="Processes per node, when no launch line shows it."),
    nodes: Optional[int] = typer.Option(None, "--nodes", help="Number of nodes, when no launch line shows it."),
    cpu_cores: Optional[int] = typer.Option(None, "--cpu-cores", help="CPU cores per node of the training machine."),
    deepspeed_version: Optional[str] = typer.Option(None, "--deepspeed-version", help="DeepSpeed version to check configs against."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress line on long runs."),
) -> None:
    """Check training scripts, DeepSpeed configs and launch scripts."""
    paths = paths or ["."]
    if output_format not in ("full", "concise", "json", "sarif", "github"):
        raise UsageError(f"unknown output format {output_format!r} (choose from full, concise, json, sarif, github)")
    facts = {"nproc-per-node": nproc_per_node, "nodes": nodes, "cpu-cores": cpu_cores, "deepspeed-version": deepspeed_version}
    settings, _ = _settings(paths, select, ignore, extend_select, facts)
    if fix or diff:
        raise typer.Exit(_run_fix(paths, settings, unsafe_fixes, diff, output_format, quiet, exit_zero))
    from . import engine
    from .report import render

    result = engine.check(paths, settings, use_cache=not no_cache, jobs=jobs,
                          progress_factory=_progress_factory(not no_progress and output_format in ("full", "concise")))
    for error in result.errors:
        typer.echo(f"dslint: error: {error}", err=True)
    if show_setup:
        _print_setup(result.project, settings)
    render(result.findings, output_format, sys.stdout, result.texts, color=_color(output_format))
    if output_format in ("full", "concise") and not quiet:
        _summary(result)
    raise typer.Exit(_exit_code(result, exit_zero))


def _print_setup(project, settings) -> None:
    try:
        from .facts.link import describe_setups
    except ImportError:
        typer.echo("dslint: setup linking is not available in this build", err=True)
        return
    typer.echo(describe_setups(project, settings))


def _summary(result) -> None:
    sys.stdout.flush()
    n = len(result.findings)
    fixable = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability.value == "safe")
    unsafe = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability.value == "unsafe")
    if n == 0:
        typer.echo(f"All checks passed ({result.files} file{'s' if result.files != 1 else ''} checked).", err=True)
        return
    line = f"Found {n} problem{'s' if n != 1 else ''} in {result.files} checked file{'s' if result.files != 1 else ''}."
    if fixable:
        line += f"\n[*] {fixable} fixable with `dslint fix`."
    if unsafe:
        line += f"\n{unsafe} more fixable with `dslint fix --unsafe-fixes`."
    typer.echo(line, err=True)


def _exit_code(result, exit_zero: bool) -> int:
    if result.internal_error or result.errors:
        return 2
    if result.findings and not exit_zero:
        return 1
    return 0


def _run_fix(paths, settings, unsafe: bool, diff: bool, output_format: str, quiet: bool, exit_zero: bool,
             exit_non_zero_on_fix: bool = False) -> int:
    from . import engine
    from .report import render

    outcome = engine.fix(paths, settings, unsafe=unsafe, write=not diff)
    for line in outcome.dropped:
        typer.echo(f"dslint: {line}", err=True)
    for error in outcome.remaining.errors:
        typer.echo(f"dslint: error: {error}", err=True)
    if diff:
        sys.stdout.write(_unified_diff(outcome.changed, Path.cwd()))
        if not quiet:
            typer.echo(f"Would fix {outcome.applied} problem{'s' if outcome.applied != 1 else ''} "
                       f"in {len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''}.", err=True)
        return 1 if outcome.changed and not exit_zero else (2 if outcome.remaining.errors else 0)
    render(outcome.remaining.findings, output_format, sys.stdout, outcome.remaining.texts, color=_color(output_format))
    if not quiet and output_format in ("full", "concise"):
        remaining = len(outcome.remaining.findings)
        typer.echo(f"Fixed {outcome.applied} problem{'s' if outcome.applied != 1 else ''} in "
                   f"{len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''}; {remaining} remaining.", err=True)
    code = _exit_code(outcome.remaining, exit_zero)
    if code == 0 and exit_non_zero_on_fix and outcome.changed:
        code = 1  # pre-commit's convention: a hook that changed files fails
    return code


@app.command("fix")
def fix_command(
    paths: List[str] = typer.Argument(None, help="Files or folders to fix (default: .)"),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes that change behaviour."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff, write nothing."),
    output_format: str = typer.Option("full", "--output-format", "-o", help=FORMAT_HELP),
    select: Optional[List[str]] = typer.Option(None, "--select"),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore"),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select"),
    exit_non_zero_on_fix: bool = typer.Option(False, "--exit-non-zero-on-fix", help="Exit 1 when files were changed (pre-commit)."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Apply fixes (safe ones; --unsafe-fixes for the rest), then report what remains."""
    paths = paths or ["."]
    settings, _ = _settings(paths, select, ignore, extend_select, {})
    raise typer.Exit(_run_fix(paths, settings, unsafe_fixes, diff, output_format, quiet, False, exit_non_zero_on_fix))


@app.command("rules")
def rules_command(output_format: str = typer.Option("full", "--output-format", "-o", help="full or json")) -> None:
    """List every rule: code, name, family, fix applicability."""
    import json

    from .docs import rule_summary
    from .rules.registry import all_rules

    rows = [r for r in sorted(all_rules().values(), key=lambda r: r.code)]
    if output_format == "json":
        typer.echo(json.dumps([{"code": r.code, "name": r.name, "family": r.family, "kind": r.kind,
                                "severity": r.severity.value, "fix": r.fix.value if r.fix else None,
                                "summary": rule_summary(r.code), "url": r.url} for r in rows], indent=2))
        return
    for r in rows:
        fix = r.fix.value if r.fix else "-"
        typer.echo(f"{r.code}  {r.name:<44} {r.family:<22} fix: {fix:<7} {rule_summary(r.code) or ''}")


@app.command("explain")
def explain_command(code: str = typer.Argument(..., help="A rule code, e.g. DSL101")) -> None:
    """Print a rule's documentation."""
    from .docs import rule_doc
    from .rules.registry import all_rules

    rules = all_rules()
    code = code.upper()
    if code not in rules:
        close = difflib.get_close_matches(code, list(rules), n=3)
        # ties in similarity: prefer the code that differs in the fewest positions (a typo'd digit)
        close.sort(key=lambda c: -sum(a == b for a, b in zip(code, c)))
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(f"unknown rule {code}{hint}; `dslint rules` lists them")
    doc = rule_doc(code)
    if doc is None:
        rule = rules[code]
        doc = f"# {code} {rule.name}\n\n(no documentation file for this rule)\n"
    typer.echo(doc.rstrip("\n"))


@app.command("version")
def version_command() -> None:
    """Print dslint's version."""
    typer.echo(f"dslint {__version__}")


def _mount_optional_commands() -> None:
    """Subcommands whose modules other parts own: probe (runtime) and lsp (editor)."""
    import importlib

    for module_name, attr, name in (("dslint.probe.cli", "probe_app", "probe"), ("dslint.lsp", "lsp_app", "lsp")):
        try:
            module = importlib.util.find_spec(module_name)
        except (ImportError, ValueError):
            module = None
        if module is None:
            continue
        try:
            sub = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError):
            continue
        if isinstance(sub, typer.Typer):
            app.add_typer(sub, name=name)
        else:
            app.command(name, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(sub)


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: every failure that is not a finding exits 2 with one line."""
    _mount_optional_commands()
    try:
        code = app(args=argv, standalone_mode=False, prog_name="dslint")
    except UsageError as error:
        typer.echo(f"dslint: error: {error}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("dslint: interrupted", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(2)
    except Exception as error:  # never exit 1 for a crash: 1 means "findings"
        # click's exceptions (typer vendors click, so match them by shape, not by class)
        kind = type(error).__name__
        if kind == "Exit" and hasattr(error, "exit_code"):
            sys.exit(error.exit_code)
        if kind == "Abort":
            typer.echo("dslint: aborted", err=True)
            sys.exit(2)
        if hasattr(error, "show") and hasattr(error, "exit_code"):
            error.show()
            sys.exit(2)
        typer.echo(f"dslint: internal error: {kind}: {error} (please report this)", err=True)
        if os.environ.get("DSLINT_DEBUG"):
            raise
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
