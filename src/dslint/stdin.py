"""`dslint check -` and `dslint fix -`: lint the text piped in, as the file `--stdin-filename`
names (its kind and its settings), for editors and formatters that pipe buffers.

`check -` reports as usual; `fix -` writes the fixed text to stdout (the input unchanged when
nothing was fixed) and what remains to stderr, as ruff does. Nothing is written to disk.
"""
from __future__ import annotations

import difflib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional


def run_stdin(resolver, stdin_filename: Optional[str], *, fix: bool, unsafe: bool, diff: bool, report,
              exit_zero: bool, exit_non_zero_on_fix: bool) -> int:
    from . import engine
    from .report import TextSource, render
    from .report.output import emit

    from .model import UsageError

    name = stdin_filename or "-"
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{name} (stdin): not valid UTF-8 at byte {error.start}") from None
    # the engine sees the buffer under its absolute path (the fix loop keys texts by it)
    abspath = str(Path(name).resolve())
    settings = resolver.for_folder(Path(abspath).parent)
    overlay = {abspath: text}
    if not fix:
        result = _renamed(engine.check([abspath], settings, use_cache=False, overlay=overlay), abspath, name, text)
        emit(result.findings, result.texts, report, files=result.files)
        return _exit_code(result, exit_zero)
    outcome = engine.fix([abspath], settings, unsafe=unsafe, write=False, overlay=overlay)
    new_text = outcome.changed.get(abspath, (text, text))[1]
    remaining = _renamed(outcome.remaining, abspath, name, new_text)
    if diff:
        lines = difflib.unified_diff(text.splitlines(True), new_text.splitlines(True), f"a/{name}", f"b/{name}")
        sys.stdout.write("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                                 for line in lines))
    else:
        sys.stdout.write(new_text)
    sys.stdout.flush()
    if remaining.findings and not report.quiet:
        render(remaining.findings, "concise", sys.stderr, source=TextSource(remaining.texts))
    for error in remaining.errors:
        sys.stderr.write(f"dslint: error: {error}\n")
    if diff:
        return 1 if new_text != text and not exit_zero else _exit_code(remaining, True)
    code = _exit_code(remaining, exit_zero)
    if code == 0 and exit_non_zero_on_fix and new_text != text:
        code = 1
    return code


def _renamed(result, abspath: str, name: str, text: str):
    """The result with the buffer's findings under the name the user gave."""
    result.findings = [replace(f, path=name) if f.path == abspath else f for f in result.findings]
    result.texts = {(name if path == abspath else path): t for path, t in result.texts.items()}
    result.texts[name] = text
    return result


def _exit_code(result, exit_zero: bool) -> int:
    if result.internal_error or result.errors:
        return 2
    return 1 if result.findings and not exit_zero else 0
