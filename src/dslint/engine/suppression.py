"""`# noqa` comments: reading them, applying them to findings, and DSL004 (unused-noqa).

Line level: `# noqa: DSL101, DSL102` (any case, other linters' codes may share the list) on a
finding's first or last line silences those codes there; a bare `# noqa` silences nothing, so a
comment meant for another tool never hides a dslint finding. File level: `# dslint: noqa`
alone on a line silences the whole file, `# dslint: noqa: DSL101` only those codes.

DSL004, as ruff's RUF100: a `DSLnnn` in a line's list that names no rule, or that silenced
nothing although its rule ran on the file, is reported with a safe fix removing it (the whole
comment when it was the only code). Only codes whose findings depend on this file alone are
judged: a setup or cross-module finding may appear only when the whole project is checked.
"""
from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Optional

from ..fixes import edit, fixer, make_fix
from ..model import Applicability, Finding
from ..sources.files import decode_text
from ..textpos import LineIndex

# A `# noqa:` list may mix other linters' codes with ours (`# noqa: E501, DSL101`), as ruff and flake8 allow.
NOQA_LINE = re.compile(r"#[ \t]*noqa[ \t]*:[ \t]*(?P<codes>[A-Z]+\d+(?:[ \t]*,[ \t]*[A-Z]+\d+)*)", re.IGNORECASE)
NOQA_FILE = re.compile(r"^[ \t]*#[ \t]*dslint[ \t]*:[ \t]*noqa[ \t]*"
                       r"(?::[ \t]*(?P<codes>[A-Z]+\d+(?:[ \t]*,[ \t]*[A-Z]+\d+)*))?[ \t]*\r?$",
                       re.IGNORECASE | re.MULTILINE)
CODE = re.compile(r"[A-Z]+\d+", re.IGNORECASE)
UNUSED_NOQA = "DSL004"
ENGINE_CODES = ("DSL001", "DSL002", "DSL003")  # never silenced: the file was not (fully) checked
RULE_CRASH = re.compile(r"internal error (?:in rule|deciding) (DSL\d+) ")


def parse_noqa(text: str):
    """(row -> set of DSL codes, file level): file level is False, True (every code) or a
    frozenset of codes."""
    if "noqa" not in text and "noqa" not in text.lower():  # (a case-blind `noqa` search, a few times faster than a regex)
        return {}, False
    if "\r" in text:  # rows as Python counts them: a lone \r ends a line too (only rows are read here)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    file_noqa: object = False
    for match in NOQA_FILE.finditer(text):
        if match.group("codes") is None:
            file_noqa = True
            break
        codes = frozenset(_codes(match.group("codes")))
        file_noqa = codes | (file_noqa or frozenset())
    rows: dict[int, set] = {}
    row, counted = 1, 0
    for match in NOQA_LINE.finditer(text):
        row += text.count("\n", counted, match.start())
        counted = match.start()
        if row in rows:
            continue  # the first list of a line counts, as before
        codes = {c for c in _codes(match.group("codes")) if c.startswith("DSL")}
        rows[row] = codes
    return {r: c for r, c in rows.items() if c}, file_noqa


def _codes(group: str) -> list[str]:
    return [c.strip().upper() for c in group.split(",") if c.strip()]


def filter_findings(findings: list[Finding], results: list, settings, overlay: Optional[dict] = None) -> list[Finding]:
    """The findings that survive select/ignore, per-file-ignores and noqa, plus DSL004's."""
    by_path = {r.source.path: r for r in results}
    used: set = set()  # (path, row, code) of the line-level noqa codes that silenced something
    kept = [f for f in findings if not suppressed(f, by_path, settings, used)]
    if settings.is_enabled(UNUSED_NOQA):
        for finding in unused_noqa(results, findings, used, settings, overlay):
            if not suppressed(finding, by_path, settings, used):
                kept.append(finding)
    return kept


def suppressed(finding: Finding, by_path: dict, settings, used: Optional[set] = None) -> bool:
    if not settings.is_enabled(finding.code) and finding.code != "DSL003":
        return True
    if finding.code == "DSL003" and (crashed := RULE_CRASH.match(finding.message)) and not settings.is_enabled(crashed[1]):
        return True  # every rule runs (for the cache); a deselected one's crash is not this run's business
    result = by_path.get(finding.path)
    silenced = False
    if result is not None and finding.code not in ENGINE_CODES:
        for row in {finding.span.start.row, finding.span.end.row}:
            if finding.code in result.noqa.get(row, ()):
                silenced = True
                if used is not None:
                    used.add((finding.path, row, finding.code))
        file_noqa = result.file_noqa
        if file_noqa is True or (file_noqa and finding.code in file_noqa):
            silenced = True
    if silenced:
        return True
    return any(path_matches(finding.path, pattern) and any(finding.code.startswith(c.upper()) or c.upper() == "ALL"
                                                           for c in codes)
               for pattern, codes in settings.per_file_ignores.items())


def path_matches(path: str, pattern: str) -> bool:
    norm = path.replace(os.sep, "/")
    if norm.startswith("./"):
        norm = norm[2:]  # (lstrip("./") would also eat the dot of ".github/...")
    return fnmatch.fnmatch(norm, pattern) or fnmatch.fnmatch(Path(path).name, pattern) or fnmatch.fnmatch(norm, f"*/{pattern}")


def _judged(code: str, rules: dict, project_codes: set) -> bool:
    """Whether an unused `code` proves the comment stale: its rule runs per file, alone."""
    rule = rules.get(code)
    return rule is not None and rule.kind in ("python", "dsconfig", "launch") and code not in project_codes


def unused_noqa(results: list, findings: list[Finding], used: set, settings, overlay: Optional[dict]) -> list[Finding]:
    """DSL004 findings: one per comment, naming its unknown or unused DSL codes."""
    from ..rules.registry import PROGRAM_CHECKS, RULES

    out: list[Finding] = []
    broken = {f.path for f in findings if f.code in ENGINE_CODES}
    # a contextual candidate dropped in the project phase may be kept with other files: not judged
    candidates = {(r.source.path, row, f.code) for r in results for f in r.findings if f.needs is not None
                  for row in (f.span.start.row, f.span.end.row)}
    project_codes = set(PROGRAM_CHECKS)
    for result in results:
        if not result.noqa or result.kind not in ("python", "launch") or result.source.path in broken:
            continue
        stale: dict[int, list[tuple[str, bool]]] = {}
        for row, codes in result.noqa.items():
            for code in sorted(codes):
                if code == UNUSED_NOQA or (result.source.path, row, code) in used:
                    continue
                if code not in RULES:
                    stale.setdefault(row, []).append((code, False))
                elif (settings.is_enabled(code) and _judged(code, RULES, project_codes)
                      and (result.source.path, row, code) not in candidates):
                    stale.setdefault(row, []).append((code, True))
        if stale:
            out += _report(result, stale, overlay)
    return out


def _report(result, stale: dict, overlay: Optional[dict]) -> list[Finding]:
    text = _text_of(result, overlay)
    if text is None:
        return []
    from ..rules.registry import RULES

    lines = LineIndex(text)
    out = []
    for row, entries in sorted(stale.items()):
        if row > len(lines.line_starts):
            continue
        line = lines.line(row)
        match = _comment_match(line, result.kind)
        if match is None:
            continue
        start = lines.line_starts[row - 1]
        codes = [code for code, _ in entries]
        unknown = [code for code, known in entries if not known]
        if unknown and len(unknown) == len(codes):
            what = f"unknown code{'s' if len(codes) > 1 else ''} {', '.join(codes)} in `noqa`"
        else:
            what = f"unused `noqa` code{'s' if len(codes) > 1 else ''} {', '.join(codes)}: nothing reported here"
            if unknown:
                what += f" ({', '.join(unknown)} is no dslint code)"
        remove = "the comment" if len(codes) == len(_codes(match.group("codes"))) else "them"
        if remove == "them" and len(codes) == 1:
            remove = "it"
        out.append(Finding(
            code=UNUSED_NOQA, message=f"{what}; remove {remove}", path=result.source.path,
            span=lines.span(start + match.start(), start + match.end()), severity=RULES[UNUSED_NOQA].severity,
            name=RULES[UNUSED_NOQA].name,
            fix=make_fix("remove-noqa-codes", f"Remove {', '.join(codes)} from the `noqa` comment",
                         Applicability.SAFE, row=row, codes=tuple(codes), kind=result.kind)))
    return out


def _text_of(result, overlay: Optional[dict]) -> Optional[str]:
    if result.text is not None:
        return result.text
    if overlay is not None and result.source.abspath in overlay:
        return overlay[result.source.abspath]
    try:
        with open(result.source.abspath, "rb") as handle:
            data = handle.read()
        return decode_text(data, result.source.abspath.endswith(".py"))
    except (OSError, UnicodeDecodeError, LookupError):
        return None


def _comment_match(line: str, kind: str):
    """The line's `# noqa:` list that is a comment (in Python: not text inside a string)."""

    return noqa_list(line.rstrip("\r"), kind)


@fixer("remove-noqa-codes")
def _remove_codes(text: str, params: dict) -> Optional[list]:
    """Drop `codes` from the `noqa` list on `row`; the whole directive when none would remain."""
    lines = LineIndex(text)
    row, codes = params["row"], {c.upper() for c in params["codes"]}
    if row > len(lines.line_starts):
        return None
    line = lines.line(row).rstrip("\r")
    match = _comment_match(line, params.get("kind", "python"))
    if match is None:
        return None
    start = lines.line_starts[row - 1]
    present = [m for m in CODE.finditer(match.group("codes"))]
    keep = [m.group() for m in present if m.group().upper() not in codes]
    if len(keep) == len(present):
        return None
    if keep:
        at = match.start("codes")
        return [edit(lines, start + at, start + match.end("codes"), ", ".join(keep))]
    rest = line[match.end():]
    if rest.strip():  # what follows stays: another comment as it is, words as a comment of their own
        after = match.end() + len(rest) - len(rest.lstrip())
        return [edit(lines, start + match.start(), start + after, "" if rest.lstrip().startswith("#") else "# ")]
    before = line[:match.start()]
    cut = len(before.rstrip())
    return [edit(lines, start + cut, start + len(line), "")]


def noqa_list(line: str, kind: str):
    """The `# noqa: A1, B2` list of the line's comment (not one that sits inside a string)."""
    for match in NOQA_LINE.finditer(line):
        if kind != "python" or _is_comment_start(line, match.start()):
            return match
    return None


def _is_comment_start(line: str, column: int) -> bool:
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    return any(t.type == tokenize.COMMENT and t.start[1] == column for t in tokens)
