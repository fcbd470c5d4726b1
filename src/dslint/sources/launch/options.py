"""Option parsers that follow each launcher's own rules: argparse, getopt_long, Open MPI.

Each parser reads `args[i:]`, stops where the launcher stops (the script or program), and
returns the options it took plus the index of the first word it did not take.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from dslint.model import Span

from .model import UNKNOWN_OPTIONS, LaunchOption, ShellArg


def join_spans(first: Span, last: Span) -> Span:
    return Span(first.start, last.end, first.start_offset, last.end_offset)


def sub_span(arg: ShellArg, start: int, end: int) -> Span:
    """The span of raw[start:end] when the raw text is the plain value (no quotes or expansions);
    otherwise the whole word."""
    if arg.value is None or arg.raw != arg.value or arg.span.start.row != arg.span.end.row:
        return arg.span
    s, e = arg.span.start, arg.span.start
    return Span(
        replace(s, column=s.column + start),
        replace(e, column=e.column + end),
        arg.span.start_offset + start,
        arg.span.start_offset + end,
    )


def _option(name: str, key: str, arg: ShellArg, value_arg: Optional[ShellArg], attached: Optional[str],
            name_len: int, is_flag: bool, known: bool = True) -> LaunchOption:
    """Build a LaunchOption from the option word and either an attached value or a next word."""
    if is_flag:
        return LaunchOption(name, key, None, None, True, arg.span, arg.span, None, known)
    if attached is not None:
        value = None if arg.value is None else attached
        name_span = sub_span(arg, 0, name_len)
        value_span = sub_span(arg, len(arg.raw) - len(attached), len(arg.raw)) if arg.value is not None else arg.span
        return LaunchOption(name, key, value, attached, False, arg.span, name_span, value_span, known,
                            from_default=arg.from_default)
    if value_arg is None:  # the value is missing (end of the command)
        return LaunchOption(name, key, None, None, False, arg.span, arg.span, None, known)
    return LaunchOption(name, key, value_arg.value, value_arg.raw, False, join_spans(arg.span, value_arg.span),
                        arg.span, value_arg.span, known, from_default=value_arg.from_default)


def _text(arg: ShellArg) -> str:
    """The word as the launcher would see it; the raw text stands in for an unknown value."""
    return arg.value if arg.value is not None else arg.raw


def unread_words(args: list[ShellArg], i: int, is_program: Optional[Callable[[ShellArg], bool]],
                 rest: Optional[Callable[[int], tuple[list[LaunchOption], int]]] = None
                 ) -> Optional[tuple[list[LaunchOption], int]]:
    """At args[i], expansions dslint cannot read that stand among a launcher's options (`srun -N 2
    $SRUN_ARGS python ...`): bash splits them into words the launcher reads as options. They are
    options when the program follows them, or follows options of the launcher's table after them
    (`rest(j)` parses those); else they may be the program itself (None). Returns a marker option (key
    UNKNOWN_OPTIONS) for each, the options after them, and the index after those. An expansion that is
    empty as written (`${X:-}`) is no word at all."""
    j = i
    while j < len(args) and args[j].value is None and (args[j].split_unknown or args[j].empty_default):
        j += 1
    if j == i:
        return None
    marks = [LaunchOption(a.raw, UNKNOWN_OPTIONS, None, None, True, a.span, a.span, None, known=False)
             for a in args[i:j] if not a.empty_default]
    if not marks or (is_program is not None and j < len(args) and is_program(args[j])):
        return marks, j
    if is_program is None or rest is None or j >= len(args) or not _text(args[j]).startswith("-"):
        return None
    after, k = rest(j)
    if k < len(args) and is_program(args[k]) and all(o.known or o.key == UNKNOWN_OPTIONS for o in after):
        return marks + after, k
    return None


def _looks_like_negative_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def parse_argparse(args: list[ShellArg], i: int, table: dict[str, tuple[str, int]], allow_abbrev: bool,
                   normalise: Optional[Callable[[str], str]] = None,
                   is_program: Optional[Callable[[ShellArg], bool]] = None) -> tuple[list[LaunchOption], int]:
    """argparse with a positional script and REMAINDER after it: options until the first
    positional; `--x=v`, `--x v`, `-xV`, unique prefixes when allow_abbrev (argparse's default).
    is_program: words dslint cannot read before a word it tells are options (see unread_words)."""
    options: list[LaunchOption] = []
    long_names = [name for name in table if name.startswith("--")]
    n = len(args)
    while i < n:
        arg = args[i]
        unread = unread_words(args, i, is_program,
                              lambda j: parse_argparse(args, j, table, allow_abbrev, normalise, is_program))
        if unread is not None:
            options.extend(unread[0])
            i = unread[1]
            continue
        text = _text(arg)
        if text == "--":
            return options, i + 1
        if not text.startswith("-") or text == "-" or _looks_like_negative_number(text):
            break
        if text.startswith("--"):
            name, eq, attached = text.partition("=")
            lookup = normalise(name) if normalise else name
            entry = table.get(lookup)
            if entry is None and allow_abbrev:
                matches = {table[ln] for ln in long_names if ln.startswith(lookup)}
                entry = matches.pop() if len(matches) == 1 else None
            key, nargs = entry if entry is not None else (name.lstrip("-"), None)
            i = _take_long_option(args, i, name, key, eq, attached, nargs, options)
            continue
        short = text[:2]
        entry = table.get(short)
        if entry is None:
            options.append(_option(short, short.lstrip("-"), arg, None, None, 2, is_flag=True, known=False))
            i += 1
            continue
        key, nargs = entry
        if nargs == 0:
            options.append(_option(short, key, arg, None, None, 2, is_flag=True))
            i += 1
        elif len(text) > 2:
            attached = text[3:] if text[2] == "=" else text[2:]
            options.append(_option(short, key, arg, None, attached, 2, is_flag=False))
            i += 1
        else:
            value_arg = args[i + 1] if i + 1 < n else None
            options.append(_option(short, key, arg, value_arg, None, 2, is_flag=False))
            i += 2
    return options, i


def _take_long_option(args: list[ShellArg], i: int, name: str, key: str, eq: str, attached: str,
                      nargs: Optional[int], options: list[LaunchOption]) -> int:
    """`--name`, `--name=value` or `--name value`; nargs None: not in the table (no value taken
    unless attached). Returns the index after the option."""
    arg = args[i]
    if nargs is None:
        options.append(_option(name, key, arg, None, attached if eq else None, len(name), is_flag=not eq,
                               known=False))
        return i + 1
    if nargs == 0:
        options.append(_option(name, key, arg, None, None, len(name), is_flag=True))
        return i + 1
    if eq:
        options.append(_option(name, key, arg, None, attached, len(name), is_flag=False))
        return i + 1
    value_arg = args[i + 1] if i + 1 < len(args) else None
    options.append(_option(name, key, arg, value_arg, None, len(name), is_flag=False))
    return i + 2


def parse_getopt(args: list[ShellArg], i: int, long_table: dict[str, int], short_table: dict[str, int],
                 is_program: Optional[Callable[[ShellArg], bool]] = None) -> tuple[list[LaunchOption], int]:
    """getopt_long with a '+' option string (Slurm): options until the first non-option.
    has_arg 0: flag; 1: value attached or next word; 2: value only when attached."""
    options: list[LaunchOption] = []
    n = len(args)
    while i < n:
        arg = args[i]
        unread = unread_words(args, i, is_program,
                              lambda j: parse_getopt(args, j, long_table, short_table, is_program))
        if unread is not None:
            options.extend(unread[0])
            i = unread[1]
            continue
        text = _text(arg)
        if text == "--":
            return options, i + 1
        if not text.startswith("-") or text == "-":
            break
        if text.startswith("--"):
            name, eq, attached = text.partition("=")
            key = name[2:]
            has_arg = long_table.get(key)
            if has_arg is None:  # getopt_long accepts a unique prefix
                matches = [ln for ln in long_table if ln.startswith(key)]
                if len(matches) == 1:
                    key = matches[0]
                    has_arg = long_table[key]
            if has_arg == 2:  # optional_argument: a value only with `=`
                has_arg = 1 if eq else 0
            i = _take_long_option(args, i, name, key, eq, attached, has_arg, options)
            continue
        i = _parse_short_cluster(args, i, short_table, options)
    return options, i


def _parse_short_cluster(args: list[ShellArg], i: int, short_table: dict[str, int],
                         options: list[LaunchOption]) -> int:
    """`-lN2`: flags, then one option whose value is the rest of the word or the next word."""
    arg = args[i]
    text = _text(arg)
    j = 1
    while j < len(text):
        letter = text[j]
        has_arg = short_table.get(letter, 0)
        name = "-" + letter
        rest = text[j + 1:]
        if has_arg == 0 or (has_arg == 2 and not rest):
            options.append(_option(name, letter, arg, None, None, 2, is_flag=True, known=letter in short_table))
            j += 1
            continue
        if rest:
            options.append(_option(name, letter, arg, None, rest, j + 1, is_flag=False))
            return i + 1
        value_arg = args[i + 1] if i + 1 < len(args) else None
        options.append(_option(name, letter, arg, value_arg, None, 2, is_flag=False))
        return i + 2
    return i + 1


def parse_mpirun(args: list[ShellArg], i: int, table: dict[str, int], canonical: dict[str, str],
                 is_program: Callable[[ShellArg], bool]) -> tuple[list[LaunchOption], int]:
    """Open MPI's command line: `-name` or `--name` followed by its parameters. An option we do
    not know takes the words up to the program, when a program we recognise follows."""
    options: list[LaunchOption] = []
    n = len(args)
    program_at = next((k for k in range(i, n) if is_program(args[k])), None)
    while i < n:
        arg = args[i]
        unread = unread_words(args, i, is_program)
        if unread is not None:
            options.extend(unread[0])
            i = unread[1]
            continue
        text = _text(arg)
        if text == "--":
            return options, i + 1
        if not text.startswith("-") or text == "-":
            break
        name = text.split("=", 1)[0] if text.startswith("--") else text
        bare = name.lstrip("-")
        nparams = table.get(bare)
        if nparams is None:
            stop = i + 1
            if program_at is not None and program_at > i:
                while stop < program_at and not _text(args[stop]).startswith("-"):
                    stop += 1
            values = args[i + 1:stop]
            options.append(_multi_value_option(name, bare, arg, values, known=False))
            i = stop
            continue
        key = canonical.get(bare, bare)
        if "=" in text and text.startswith("--") and nparams == 1:
            attached = text.split("=", 1)[1]
            options.append(_option(name, key, arg, None, attached, len(name), is_flag=False))
            i += 1
            continue
        values = args[i + 1:i + 1 + nparams]
        options.append(_multi_value_option(name, key, arg, values, known=True, is_flag=nparams == 0))
        i += 1 + nparams
    return options, i


def _multi_value_option(name: str, key: str, arg: ShellArg, values: list[ShellArg], known: bool,
                        is_flag: bool = False) -> LaunchOption:
    if not values:
        return LaunchOption(name, key, None, None, is_flag or not known, arg.span, arg.span, None, known)
    if len(values) == 1:
        return _option(name, key, arg, values[0], None, len(name), is_flag=False, known=known)
    known_values = [v.value for v in values]
    value = None if any(v is None for v in known_values) else " ".join(known_values)  # type: ignore[arg-type]
    raw = " ".join(v.raw for v in values)
    return LaunchOption(name, key, value, raw, False, join_spans(arg.span, values[-1].span), arg.span,
                        join_spans(values[0].span, values[-1].span), known,
                        from_default=any(v.from_default for v in values))
