"""The `dslint` command line. Thin: parse options, call the engine, pick a reporter.

Exit codes: 0 no findings, 1 findings, 2 usage or internal error (never 1 for a crash).
"""
from __future__ import annotations

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

FORMAT_HELP = ("full (code frames), concise (one line each), grouped (by file), pylint, json (ruff-compatible), "
               "json-lines, sarif (2.1.0), github (annotations), gitlab (code quality), junit (XML); "
               "default: $DSLINT_OUTPUT_FORMAT, else full")
COLOR_HELP = "auto (a terminal; FORCE_COLOR forces, NO_COLOR stops), always or never."


def _codes(values: Optional[List[str]]) -> Optional[list[str]]:
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def _resolver(select, ignore, extend_select, facts: dict, config: Optional[str], isolated: bool):
    """Each file's settings: its nearest [tool.dslint] (or --config, or none with --isolated),
    then the flags. The flags are validated here, before any file is read."""
    from .settings import SettingsResolver, load_settings

    if config is not None and not Path(config).is_file():
        raise UsageError(f"--config {config}: no such file")
    overrides = {"select": _codes(select), "ignore": _codes(ignore), "extend-select": _codes(extend_select), **facts}
    load_settings(Path.cwd(), overrides, isolated=True)
    return SettingsResolver(overrides, config=Path(config).resolve() if config else None, isolated=isolated)


def _per_file_ignores(values: Optional[List[str]]) -> Optional[dict]:
    if not values:
        return None
    table: dict = {}
    for value in values:
        pattern, colon, codes = value.rpartition(":")
        if not colon or not pattern.strip() or not codes.strip():
            raise UsageError(f"--per-file-ignores {value!r}: write PATTERN:CODES, e.g. 'scripts/*.py:DSL101,DSL102'")
        table.setdefault(pattern.strip(), []).extend(_codes([codes]))
    return table


def _plan(paths: list[str], resolver):
    from .targets import plan

    work = plan(paths, resolver)
    for line in work.warnings:
        typer.echo(f"dslint: warning: {line}", err=True)
    return work


def _check_plan(work, **options):
    """engine.check once per group of files that share settings; one result."""
    from . import engine
    from .targets import merge_checks

    if not work.groups:
        return engine.CheckResult(findings=[], errors=list(work.errors), files=0, skipped=list(work.skipped))
    result = merge_checks([engine.check(paths, settings, discovered=work.discovered, **options)
                           for settings, paths in work.groups])
    result.errors[:0] = work.errors
    result.skipped[:0] = work.skipped
    return result


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


def _unified_diff(changed: dict, root: Path) -> str:
    import difflib

    chunks = []
    for abspath, (old, new) in sorted(changed.items()):
        try:
            name = os.path.relpath(abspath, root)
        except ValueError:
            name = abspath
        lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}")
        # a last line without its newline needs the marker, or `git apply` and `patch` reject the hunk
        chunks.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines))
    return "".join(chunks)


@app.command()
def check(
    ctx: typer.Context,
    paths: List[str] = typer.Argument(None, help="Files or folders to check (default: .); - reads stdin."),
    output_format: Optional[str] = typer.Option(None, "--output-format", "-o", help=FORMAT_HELP),
    output_file: Optional[str] = typer.Option(None, "--output-file", help="Write the report to this file (default: $DSLINT_OUTPUT_FILE); the summary stays on stderr."),
    color: str = typer.Option("auto", "--color", help=COLOR_HELP),
    statistics: bool = typer.Option(False, "--statistics", help="Count findings per rule instead of listing them."),
    show_fixes: bool = typer.Option(False, "--show-fixes", help="List the available fixes as diffs (with --fix: what was fixed)."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes (like `dslint fix`)."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix: also apply unsafe fixes; without: show them as available."),
    diff: bool = typer.Option(False, "--diff", help="With --fix: print the fixes as a unified diff, write nothing."),
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these codes or prefixes (DSL1, DSL101)."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Add codes to the selection."),
    per_file_ignores: Optional[List[str]] = typer.Option(None, "--per-file-ignores", help="PATTERN:CODES, repeatable; replaces the file's per-file-ignores."),
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
    exit_non_zero_on_fix: bool = typer.Option(False, "--exit-non-zero-on-fix", help="Exit 1 when files were changed (pre-commit)."),
    config: Optional[str] = typer.Option(None, "--config", help="Use this pyproject.toml or dslint.toml instead of the nearest one."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore every settings file."),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", help="With -: the name of the piped file (its kind and settings)."),
    add_noqa: bool = typer.Option(False, "--add-noqa", help="Add `# noqa: CODE` to every line with a finding (JSON configs: use per-file-ignores)."),
) -> None:
    """Check training scripts, DeepSpeed configs and launch scripts."""
    from .engine.parallel import gc_paused

    with gc_paused(freeze=True):  # (each full collection re-traverses every result kept so far)
        paths = paths or ["."]
        fix = fix or ctx.info_name == "fix"  # `dslint fix` is `dslint check --fix`, with the same options
        report = _report_options(output_format, output_file, color, unsafe_fixes, statistics, show_fixes, quiet)
        output_format = report.fmt
        facts = {"nproc-per-node": nproc_per_node, "nodes": nodes, "cpu-cores": cpu_cores, "deepspeed-version": deepspeed_version}
        facts["per-file-ignores"] = _per_file_ignores(per_file_ignores)
        resolver = _resolver(select, ignore, extend_select, facts, config, isolated)
        if exit_zero and exit_non_zero_on_fix:  # (ruff's two flags conflict the same way)
            raise UsageError("--exit-zero cannot be combined with --exit-non-zero-on-fix")
        if add_noqa and (fix or diff or paths == ["-"]):
            raise UsageError("--add-noqa cannot be combined with fix, --fix, --diff or stdin (-)")
        if paths == ["-"]:
            from .stdin import run_stdin

            raise typer.Exit(run_stdin(resolver, stdin_filename, fix=fix or diff, unsafe=unsafe_fixes, diff=diff,
                                       report=report, exit_zero=exit_zero, exit_non_zero_on_fix=exit_non_zero_on_fix))
        work = _plan(paths, resolver)
        if add_noqa:
            raise typer.Exit(_run_add_noqa(work, quiet))
        if fix or diff:
            raise typer.Exit(_run_fix(work, None, unsafe_fixes, diff, output_format, quiet, exit_zero, exit_non_zero_on_fix,
                                      report=report))
        from .report.output import emit

        result = _check_plan(work, use_cache=not no_cache, jobs=jobs, with_project=show_setup,
                             progress_factory=_progress_factory(not no_progress and report.text),
                             edits=output_format in ("json", "json-lines") or (report.show_fixes and report.text))
        for line in result.skipped + [f"error: {e}" for e in result.errors]:
            typer.echo(f"dslint: {line}", err=True)
        if show_setup:
            _print_setup(result.project, resolver.for_folder(Path.cwd()))
        # a path that could not be checked is not "All checks passed"
        emit(result.findings, result.texts, report, files=result.files,
             summary=[] if result.errors and not result.findings else None)
        raise typer.Exit(_exit_code(result, exit_zero))


def _run_add_noqa(work, quiet: bool) -> int:
    from . import engine
    from .add_noqa import AddNoqaOutcome, add_noqa

    outcome = AddNoqaOutcome(errors=list(work.errors))
    for settings, paths in work.groups:  # the settings of each file decide what it reports
        result = engine.check(paths, settings, use_cache=False)
        outcome.errors += result.errors
        add_noqa(result.findings, paths, outcome)
    for line in work.skipped + [f"not added: {line}" for line in outcome.not_added] + [f"error: {e}" for e in outcome.errors]:
        typer.echo(f"dslint: {line}", err=True)
    if not quiet:
        s = "s" if outcome.added != 1 else ""
        typer.echo(f"Added {outcome.added} noqa code{s} to {outcome.files} file{'s' if outcome.files != 1 else ''}.", err=True)
        if outcome.json_skipped:
            typer.echo(f"Skipped {outcome.json_skipped} finding{'s' if outcome.json_skipped != 1 else ''} in JSON "
                       "configs (JSON has no comments; use per-file-ignores).", err=True)
        if outcome.unused_left:
            typer.echo(f"Left {outcome.unused_left} unused noqa code finding{'s' if outcome.unused_left != 1 else ''} "
                       "(DSL004): `dslint fix` removes them.", err=True)
    return 2 if outcome.errors else 0


def _print_setup(project, settings) -> None:
    try:
        from .facts.link import describe_setups
    except ImportError:
        typer.echo("dslint: setup linking is not available in this build", err=True)
        return
    typer.echo(describe_setups(project, settings))


def _report_options(output_format, output_file, color, unsafe_fixes, statistics, show_fixes, quiet):
    from .report.output import report_options

    return report_options(output_format, output_file, color, unsafe_fixes=unsafe_fixes, statistics=statistics,
                          show_fixes=show_fixes, quiet=quiet)


def _exit_code(result, exit_zero: bool) -> int:
    if result.internal_error or result.errors:
        return 2
    if result.findings and not exit_zero:
        return 1
    return 0


def _run_fix(work, settings, unsafe: bool, diff: bool, output_format: str, quiet: bool, exit_zero: bool,
             exit_non_zero_on_fix: bool = False, report=None) -> int:
    """Fix the files of `work` (a targets.Plan: groups of paths with their settings)."""
    from .report.output import destination, emit
    from .report.summary import fixed_lines, summary_lines

    report = report or _report_options(output_format, None, "auto", unsafe, False, False, quiet)
    before = _check_plan(work, use_cache=False).findings if report.show_fixes else []
    outcome = _fix_plan(work, unsafe=unsafe, write=not diff)
    for line in outcome.dropped + outcome.skipped:
        typer.echo(f"dslint: {line}", err=True)
    for error in outcome.remaining.errors:
        typer.echo(f"dslint: error: {error}", err=True)
    if diff:
        with destination(report.output_file, sys.stdout) as out:
            out.write(_unified_diff(outcome.changed, Path.cwd()))
        if not quiet:
            typer.echo(f"Would fix {outcome.applied} problem{'s' if outcome.applied != 1 else ''} "
                       f"in {len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''}.", err=True)
        return 1 if outcome.changed and not exit_zero else (2 if outcome.remaining.errors else 0)
    remaining = len(outcome.remaining.findings)
    summary = [f"Fixed {outcome.applied} problem{'s' if outcome.applied != 1 else ''} in "
               f"{len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''}; {remaining} remaining."]
    summary += summary_lines(outcome.remaining.findings, outcome.remaining.files, unsafe)[1:]  # what fix could still do
    if report.show_fixes:
        summary += fixed_lines(before, outcome.remaining.findings)
    emit(outcome.remaining.findings, outcome.remaining.texts, report, summary=summary, available_fixes=False)
    code = _exit_code(outcome.remaining, exit_zero)
    if code == 0 and exit_non_zero_on_fix and outcome.changed:
        code = 1  # pre-commit's convention: a hook that changed files fails
    return code


def _fix_plan(work, **options):
    """engine.fix once per group of files that share settings; one outcome."""
    from . import engine
    from .targets import merge_fixes

    if not work.groups:
        return engine.FixOutcome(changed={}, applied=0, dropped=[],
                                 remaining=engine.CheckResult(findings=[], errors=list(work.errors), files=0))
    outcome = merge_fixes([engine.fix(paths, settings, **options) for settings, paths in work.groups])
    outcome.remaining.errors[:0] = work.errors
    outcome.skipped[:0] = work.skipped
    return outcome


# `dslint fix` takes exactly `check`'s options (the callback reads which name ran it).
app.command("fix", help="Apply fixes (safe ones; --unsafe-fixes for the rest), then report what remains. "
                        "Same options as `check`.")(check)


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
def explain_command(code: Optional[str] = typer.Argument(None, help="A rule code or name, e.g. DSL101 or device-not-set"),
                    every: bool = typer.Option(False, "--all", help="Print every rule's documentation")) -> None:
    """Print a rule's documentation (by code or by name)."""
    import difflib

    from .docs import rule_doc
    from .rules.registry import all_rules

    rules = all_rules()
    if every or code is None:
        if not every:
            raise UsageError("give a rule code or name (e.g. DSL101), or --all; `dslint rules` lists them")
        for number, rule_code in enumerate(sorted(rules)):
            doc = rule_doc(rule_code) or f"# {rule_code} {rules[rule_code].name}\n\n(no documentation file for this rule)\n"
            typer.echo(("\n" if number else "") + doc.rstrip("\n"))
        return
    by_name = {rule.name: rule.code for rule in rules.values()}
    if code.lower() in by_name:
        code = by_name[code.lower()]
    code = code.upper()
    if code not in rules:
        if not code.startswith("DSL"):
            close = difflib.get_close_matches(code.lower(), list(by_name), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"unknown rule {code.lower()}{hint}; `dslint rules` lists them")
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


app.command("rule", help="Print a rule's documentation (by code or by name), as `ruff rule`.")(explain_command)


@app.command("version")
def version_command() -> None:
    """Print dslint's version."""
    typer.echo(f"dslint {__version__}")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"dslint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                       help="Print dslint's version and exit.")) -> None:
    pass


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
            # the probe parses its own options (argparse): `--help` and `-o` must reach it
            app.command(name, add_help_option=name != "probe",
                        context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(sub)


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
