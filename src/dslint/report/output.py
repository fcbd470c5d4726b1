"""Where a report goes and how it looks: format choice, colour, `--output-file`, safe text."""
from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence, TextIO

from ..model import UsageError

ENV_FORMAT = "DSLINT_OUTPUT_FORMAT"
ENV_FILE = "DSLINT_OUTPUT_FILE"  # as ruff's RUFF_OUTPUT_FILE: a CI job sets both, pre-commit runs unchanged
COLOR_CHOICES = ("auto", "always", "never")
# Surrogates reach us from file names that are not UTF-8 (os.fsdecode's surrogateescape) and
# from JSON keys such as "\ud800"; no encoding can write them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def resolve_format(flag: Optional[str]) -> str:
    """The output format: the flag, else $DSLINT_OUTPUT_FORMAT, else `full`."""
    from . import FORMATS

    value = flag if flag is not None else (os.environ.get(ENV_FORMAT) or "full")
    if value not in FORMATS:
        source = "" if flag is not None else f" (from ${ENV_FORMAT})"
        raise UsageError(f"unknown output format {value!r}{source} (choose from {', '.join(FORMATS)})")
    return value


def use_color(mode: str, stream: TextIO, to_file: bool = False) -> bool:
    """`--color`: always/never as said; auto colours a terminal, FORCE_COLOR forces, NO_COLOR stops."""
    if mode not in COLOR_CHOICES:
        raise UsageError(f"unknown --color {mode!r} (choose from {', '.join(COLOR_CHOICES)})")
    if to_file:
        return False  # a report file never gets escape codes (as ruff's --output-file)
    if mode != "auto":
        return mode == "always"
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def safe_text(text: str, encoding: Optional[str] = "utf-8") -> str:
    """`text` made writable in `encoding`: an undecodable file-name byte becomes U+FFFD, any
    other lone surrogate a `\\udxxx` escape, anything else unencodable a backslash escape."""
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda m: "\ufffd" if 0xDC80 <= ord(m.group()) <= 0xDCFF else f"\\u{ord(m.group()):04x}",
                              text)
    encoding = encoding or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        try:
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            pass
    return text


class SafeWriter:
    """A text stream that never fails on a character its target cannot encode."""

    def __init__(self, target: TextIO):
        self.target = target
        self.target_encoding = getattr(target, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        try:
            return self.target.write(text)
        except UnicodeEncodeError:
            return self.target.write(safe_text(text, self.target_encoding))

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        try:
            return self.target.isatty()
        except (AttributeError, ValueError):
            return False


@contextmanager
def destination(path: Optional[str], stdout: TextIO) -> Iterator[TextIO]:
    """The report stream: stdout, or `path` written atomically (a reader never sees half a report)."""
    if not path:
        yield SafeWriter(stdout)
        stdout.flush()
        return
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".dslint-report-", suffix=".tmp")
    except OSError as error:
        raise UsageError(f"cannot write the report to {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            yield SafeWriter(handle)
        try:
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except OSError as error:
            raise UsageError(f"cannot write the report to {path}: {error.strerror or error}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@dataclass(frozen=True)
class ReportOptions:
    """The output flags `check` and `fix` share."""

    fmt: str = "full"
    output_file: Optional[str] = None
    color: str = "auto"
    unsafe_fixes: bool = False
    statistics: bool = False
    show_fixes: bool = False
    quiet: bool = False

    @property
    def text(self) -> bool:
        from . import TEXT_FORMATS

        return self.fmt in TEXT_FORMATS


def report_options(fmt: Optional[str], output_file: Optional[str] = None, color: str = "auto", *,
                   unsafe_fixes: bool = False, statistics: bool = False, show_fixes: bool = False,
                   quiet: bool = False) -> ReportOptions:
    """Validated options (a bad format or colour is a usage error before any file is read)."""
    output_file = output_file or os.environ.get(ENV_FILE) or None
    options = ReportOptions(resolve_format(fmt), output_file, color, unsafe_fixes, statistics, show_fixes, quiet)
    use_color(color, sys.stdout)  # validates the choice
    return options


def emit(findings: list, texts: Optional[dict], options: ReportOptions, *, files: int = 0,
         summary: Optional[Sequence[str]] = None, available_fixes: bool = True) -> None:
    """Write the report to stdout or `--output-file`, then the summary lines to stderr (text formats)."""
    from . import TextSource, render
    from .summary import summary_lines, write_available_fixes, write_statistics

    source = TextSource(texts)
    with destination(options.output_file, sys.stdout) as out:
        color = use_color(options.color, out, to_file=bool(options.output_file))
        if options.statistics:
            write_statistics(findings, out, options.fmt, options.unsafe_fixes)
        else:
            render(findings, options.fmt, out, color=color, unsafe_fixes=options.unsafe_fixes, source=source)
            if options.show_fixes and available_fixes and options.text:
                write_available_fixes(findings, out, source, options.unsafe_fixes)
    if options.text and not options.quiet:
        lines = summary if summary is not None else summary_lines(findings, files, options.unsafe_fixes)
        if lines:
            sys.stderr.flush()
            SafeWriter(sys.stderr).write("\n".join(lines) + "\n")
            sys.stderr.flush()
