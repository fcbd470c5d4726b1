"""Launch commands documented in Markdown: the fenced shell blocks of README*.md and docs/**/*.md.

Many repositories document their only launch command in the README. Each fenced block tagged
bash/sh/shell/console/zsh (or untagged, when a line starts with a launcher word) is read as a
shell script in place: `shell_view` keeps the Markdown text's length and rows, blanking every
character outside the command lines (and a `$ ` prompt), so every position a launch line gets is
its position in the .md file. In a block where some lines carry a prompt, only those (and their
`\\` continuation lines) are commands; the rest is the output shown. A CommonMark indented code block
(lines indented four columns, after a blank line, outside a list) is read like an untagged fenced
block when its first line is a launch line. Markdown is never rewritten: findings here carry no fix.
"""
from __future__ import annotations

import os
import re
from typing import Optional

from .launchers import WORD_PATTERN

SHELL_TAGS = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "sh-session",
                        "terminal"})
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([^`\s]*)")
_PROMPT = re.compile(r"^[ \t]*(\$|[A-Za-z0-9_.@~:/-]*\$) ")
# A launcher word of the table (launchers.WORD_PATTERN) or python anywhere (sources/launch/parse.py LAUNCHER_WORDS).
_LAUNCHER_WORDS = re.compile(rf"\b(?:{WORD_PATTERN}|python[0-9.]*)\b")
# What a launch line of an untagged block starts with: a launcher, python, or what runs a launch script.
_LAUNCH_WORD = re.compile(
    rf"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:\S*/)?(?:{WORD_PATTERN}|python[0-9.]*|sbatch|bash|sh)\b")


def is_markdown_launch_path(path: str) -> bool:
    """README*.md anywhere, and any .md file under a `docs` folder."""
    name = os.path.basename(path)
    if not name.lower().endswith(".md"):
        return False
    if name.upper().startswith("README"):
        return True
    return "docs" in re.split(r"[\\/]", os.path.dirname(path).lower())


def shell_view(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The text with everything but the launch blocks' command lines blanked (same length, same
    rows), and the (start, end) character range of each such block."""
    lines = text.split("\n")
    kept = [" " * len(line) for line in lines]
    blocks: list[tuple[int, int]] = []
    starts = _line_starts(lines)
    row = 0
    while row < len(lines):
        fence = _FENCE.match(lines[row])
        if fence is None:
            end = _indented_block_end(lines, row)
            if end is not None and _LAUNCH_WORD.match(_without_prompt(lines[row]).strip()):
                body = range(row, end)
                for r in _command_rows(lines, body):
                    kept[r] = _without_prompt(lines[r])
                blocks.append((starts[row], starts[end - 1] + len(lines[end - 1])))
            row = end if end is not None else row + 1
            continue
        marker, tag = fence.group(2), fence.group(3).lower().strip("{}.")
        end = row + 1
        while end < len(lines) and not _closes(lines[end], marker):
            end += 1
        body = range(row + 1, end)
        if _is_launch_block(tag, [lines[r] for r in body]):
            for r in _command_rows(lines, body):
                kept[r] = _without_prompt(lines[r])
            if len(body):
                blocks.append((starts[row + 1], starts[end - 1] + len(lines[end - 1])))
        row = end + 1
    return "\n".join(kept), blocks


def has_launch_block(text: str) -> bool:
    """Cheap test first: a launcher word somewhere, then a code block holding a launch line."""
    if "```" not in text and "~~~" not in text and "\n    " not in text and "\n\t" not in text:
        return False
    if _LAUNCHER_WORDS.search(text) is None:
        return False
    view, blocks = shell_view(text)
    return any(_LAUNCHER_WORDS.search(view, start, end) for start, end in blocks)


def read_if_launch(abspath: str, limit: int = 2_000_000) -> Optional[bool]:
    """Whether a Markdown file on disk holds a launch block (None when it cannot be read)."""
    try:
        with open(abspath, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return False
    return has_launch_block(data.decode("utf-8", "replace"))


def _line_starts(lines: list[str]) -> list[int]:
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _indent(line: str) -> int:
    """The columns of leading white space (a tab runs to the next multiple of four)."""
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _indented_block_end(lines: list[str], row: int) -> Optional[int]:
    """Where an indented code block starting at `row` ends (exclusive, trailing blank lines left
    out), or None when `row` starts none. CommonMark: such a block cannot interrupt a paragraph, so
    a blank line (or the start of the file) comes before it; after a list item the indented text is
    the item's continuation, not code, so a block whose previous text is a list item or indented
    is left alone. (A heading may come right before it: it is no paragraph.)"""
    line = lines[row]
    if not line.strip() or _indent(line) < 4 or (row > 0 and lines[row - 1].strip()
                                                  and not _ATX_HEADING.match(lines[row - 1])):
        return None
    previous = next((lines[r] for r in range(row - 1, -1, -1) if lines[r].strip()), None)
    if previous is not None and (_LIST_ITEM.match(previous) or _indent(previous) > 0):
        return None
    end = row + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= 4):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return end


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(marker) and set(stripped) == {marker[0]}


def _is_launch_block(tag: str, body: list[str]) -> bool:
    if tag in SHELL_TAGS:
        return True
    if tag:
        return False
    return any(_LAUNCH_WORD.match(_without_prompt(line).strip()) for line in body)


def _command_rows(lines: list[str], body: range) -> list[int]:
    """All rows of the block, or, when some carry a prompt, the prompted ones and their
    continuation lines (the others are the commands' output)."""
    if not any(_PROMPT.match(lines[r]) for r in body):
        return list(body)
    rows = []
    continued = False
    for r in body:
        if continued or _PROMPT.match(lines[r]):
            rows.append(r)
            continued = lines[r].rstrip().endswith("\\")
    return rows


def _without_prompt(line: str) -> str:
    match = _PROMPT.match(line)
    if match is None:
        return line
    return " " * match.end() + line[match.end():]
