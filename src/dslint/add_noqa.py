"""`dslint check --add-noqa`: silence every current finding with `# noqa: CODE` on its line.

As ruff's: an existing `# noqa:` list is extended (other linters' codes stay), otherwise
`  # noqa: CODE` is appended. The comment goes where the engine reads it (the finding's first or
last line) and only where it stays a comment and changes nothing else: never after a
line-continuation backslash, inside a string or heredoc that runs on, on a `#SBATCH`-style
directive, or on a line whose first `noqa:` list is text rather than a comment (the engine would
read that one). What cannot take one is counted, never guessed: JSON configs (no comments;
`per-file-ignores` is their way), Markdown, YAML and dependency files (their `noqa` is not read),
and the engine's own DSL001-003 (a file that was not checked). DSL004 (an unused `noqa` code) is
left to `dslint fix`, which removes the stale code.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .engine.fixloop import _given_roots, _inside
from .engine.suppression import ENGINE_CODES, NOQA_LINE, UNUSED_NOQA
from .engine.suppression import noqa_list
from .lsp_noqa import _rows_without_comment_room
from .model import Finding
from .sources.discover import kind_of
from .sources.files import read_snapshot
from .textpos import LineIndex
from .writes import Skipped, replace_if_unchanged

MAKEFILE_NAMES = ("Makefile", "makefile", "GNUmakefile")
# batch schedulers read these comment lines as options: text appended there is theirs to parse
SCHEDULER_DIRECTIVES = ("#SBATCH", "#PBS", "#BSUB", "#$", "#flux:")


@dataclass
class AddNoqaOutcome:
    added: int = 0  # codes added
    files: int = 0  # files written
    json_skipped: int = 0  # findings in JSON configs
    unused_left: int = 0  # DSL004 findings: `dslint fix` removes the stale codes
    not_added: list[str] = field(default_factory=list)  # "path:row: CODE: why", one line each
    errors: list[str] = field(default_factory=list)


def add_noqa(findings: list[Finding], paths: list[str], outcome: Optional[AddNoqaOutcome] = None) -> AddNoqaOutcome:
    """Add `# noqa` codes for `findings` (of a check of `paths`) to their files: written atomically,
    only over the bytes read, and, as `fix` does, never through a symlink to outside `paths`."""
    outcome = outcome or AddNoqaOutcome()
    roots = _given_roots(paths)
    by_file: dict[str, list[Finding]] = {}
    shown: dict[str, str] = {}
    for finding in findings:
        if finding.code in ENGINE_CODES:
            continue
        if finding.code == UNUSED_NOQA:
            outcome.unused_left += 1
            continue
        kind = kind_of(Path(finding.path))
        if kind == "dsconfig":
            outcome.json_skipped += 1
            continue
        if kind not in ("python", "launch"):
            outcome.not_added.append(f"{_where(finding)}: {Path(finding.path).name} cannot hold a dslint `noqa`")
            continue
        abspath = os.path.realpath(finding.path)
        if not _inside(abspath, roots):
            outcome.not_added.append(f"{_where(finding)}: symlink to outside the given paths ({abspath})")
            continue
        if shown.setdefault(abspath, finding.path) == finding.path:
            by_file.setdefault(abspath, []).append(finding)
    for abspath, file_findings in sorted(by_file.items()):
        _add_to_file(abspath, shown[abspath], file_findings, outcome)
    return outcome


def _where(finding: Finding) -> str:
    return f"{finding.path}:{finding.span.start.row}: {finding.code}"


def _add_to_file(abspath: str, path: str, findings: list[Finding], outcome: AddNoqaOutcome) -> None:
    try:
        snapshot = read_snapshot(abspath)
        data = snapshot.data
        bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
        text = data[len(bom):].decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        outcome.errors.append(f"cannot read {path}: {getattr(error, 'strerror', None) or error}")
        return
    kind = kind_of(Path(path))
    lines = LineIndex(text)
    blocked = _blocked_rows(text, kind, path)
    codes_at: dict[int, list[str]] = {}
    for finding in sorted(findings, key=lambda f: (f.span.start.row, f.code)):
        row = _comment_row(lines, blocked, (finding.span.start.row, finding.span.end.row), kind)
        if row is None:
            outcome.not_added.append(f"{_where(finding)}: no line of the finding can take a comment")
        elif finding.code not in codes_at.setdefault(row, []):
            codes_at[row].append(finding.code)
    pieces, at = [], 0
    added = 0
    for row, codes in sorted(codes_at.items()):
        start = lines.line_starts[row - 1]
        line = lines.line(row).rstrip("\r")
        existing = noqa_list(line, kind)
        if existing is not None:
            present = {c.strip().upper() for c in existing.group("codes").split(",")}
            codes = [c for c in codes if c not in present]
            if not codes:
                continue
            cut = end = start + existing.end()
            insert = ", " + ", ".join(codes)
        else:
            body = line.rstrip()
            cut, end = start + len(body), start + len(line)  # trailing blanks are replaced
            insert = ("  # noqa: " if body else "# noqa: ") + ", ".join(codes)
        pieces += [text[at:cut], insert]
        at = end
        added += len(codes)
    if not added:
        return
    new_text = "".join(pieces) + text[at:]
    try:
        replace_if_unchanged(abspath, bom + new_text.encode("utf-8", "surrogatepass"), snapshot)
    except Skipped as why:
        outcome.not_added.append(f"{path}: skipped: {why}")
        return
    except OSError as error:
        outcome.errors.append(f"cannot write {path}: {error.strerror or error}")
        return
    outcome.added += added
    outcome.files += 1


def _comment_row(lines: LineIndex, blocked: set, rows: tuple, kind: str) -> Optional[int]:
    """The first of `rows` where an appended comment is read by the engine and changes nothing else."""
    for row in dict.fromkeys(rows):
        if row < 1 or row > len(lines.line_starts) or row in blocked:
            continue
        line = lines.line(row).rstrip("\r")
        if line.rstrip().endswith("\\") or (kind == "launch" and line.startswith(SCHEDULER_DIRECTIVES)):
            continue
        if noqa_list(line, kind) is None and NOQA_LINE.search(line):
            continue  # a `noqa:` list in a string comes first: the engine would read that one
        return row
    return None


def _blocked_rows(text: str, kind: str, path: str) -> set[int]:
    if kind == "python":
        return _rows_without_comment_room(text)
    name = Path(path).name
    if name in MAKEFILE_NAMES or name.endswith(".mk"):
        return set()  # make passes a recipe's `#` to the shell, where it starts a comment
    return _shell_rows_in_text(text)


def _shell_rows_in_text(text: str) -> set[int]:
    """Rows (1-based) whose end lies inside a multi-line string or a heredoc: a `#` there is text."""
    from .sources.launch.bash import _parser

    tree = _parser().parse(text.encode("utf-8", "surrogatepass"))
    blocked: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if node.type in ("heredoc_body", "heredoc_end", "heredoc_content"):
            blocked.update(range(first, last + 1))
        elif node.type in ("string", "raw_string", "ansi_c_string", "translated_string") and last > first:
            blocked.update(range(first, last))
        else:
            stack.extend(node.children)
    return blocked
