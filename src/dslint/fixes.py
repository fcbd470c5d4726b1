"""Turning fix descriptors into edits, and edits into new file contents.

A `Fix` names a fixer registered here and carries plain parameters; the edits are built only
when needed. Python fixers are libcst codemods (`codemod_fixer`): they rewrite the module and
the result is reduced to the smallest byte range that changed, so every other byte of the file
stays as it was.
"""
from __future__ import annotations

import ast
import bisect
import sys
import threading
from typing import Callable, Optional

from .model import Applicability, Edit, Finding, Fix
from .textpos import LineIndex

Fixer = Callable[[str, dict], Optional[list[Edit]]]
FIXERS: dict[str, Fixer] = {}
CODEMODS: set[str] = set()  # the fixers that are libcst codemods


def fixer(name: str):
    """Register `func(text, params) -> list[Edit] | None` under `name`."""

    def decorator(func: Fixer) -> Fixer:
        FIXERS[name] = func
        return func

    return decorator


def make_fix(fixer_name: str, message: str, applicability: Applicability = Applicability.SAFE, **params) -> Fix:
    return Fix(applicability=applicability, message=message, fixer=fixer_name, params=tuple(sorted(params.items())))


def build_edits(fix: Fix, text: str) -> Optional[list[Edit]]:
    """Edits for `fix` on `text`, or None when the fixer cannot apply (or crashed)."""
    return build_edits_or_reason(fix, text)[0]


def build_edits_or_reason(fix: Fix, text: str) -> tuple[Optional[list[Edit]], Optional[str]]:
    """(edits, None), or (None, why) when the fixer crashed; (None, None) when it does not apply."""
    from .rules import load_all

    load_all()
    func = FIXERS.get(fix.fixer)
    if func is None:
        return None, None
    try:
        edits = call_with_deep_stack(func, text, dict(fix.params))
    except RecursionError:
        return None, "the file nests too deeply for the rewriter"
    except Exception as error:  # a broken fixer must never take the run down; the finding stays
        return None, f"the fixer failed ({type(error).__name__})"
    return edits or None, None


def text_digest(text: str) -> bytes:
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def attach_edits(findings: list[Finding], text: str, path: str) -> None:
    """Build the edits of the fixable findings in `path` on `text`, its content, and keep them on
    the findings (they travel back from the workers and into the cache with them). Findings of
    one file share one libcst parse (`_parse_with_positions`)."""
    digest = None
    wanted = [f for f in findings if f.fix is not None and f.path == path and f.built is None]
    codemods = [f for f in wanted if f.fix.fixer in CODEMODS]
    if len(codemods) > 1:  # one window that holds every fix's rows: one libcst parse for the file
        rows = set().union(*(_rows_of(dict(f.fix.params)) for f in codemods))
        if rows:
            _remember_window(text, _Window.build(text, rows))
    for finding in wanted:
        digest = digest or text_digest(text)
        edits, why = build_edits_or_reason(finding.fix, text)
        finding.built = (digest, tuple(edits) if edits else None, why)


def prebuild_edits(findings: list[Finding], source) -> None:
    """`attach_edits` per file for the findings whose edits were not built with the check (a
    reporter that shows edits calls this first, so the fixes of one file share one parse)."""
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is not None and finding.built is None:
            by_path.setdefault(finding.path, []).append(finding)
    for path, group in by_path.items():
        text = source.get(path)
        if text is not None:
            attach_edits(group, text, path)


def edits_or_reason(finding: Finding, text: str) -> tuple[Optional[list[Edit]], Optional[str]]:
    """`build_edits_or_reason` for a finding: its prebuilt edits when they were built on `text`."""
    built = finding.built
    if built is not None and built[0] == text_digest(text):
        return (list(built[1]) if built[1] else None), built[2]
    return build_edits_or_reason(finding.fix, text)


def edits_for(finding: Finding, text: str) -> Optional[list[Edit]]:
    """The edits of a finding's fix on `text` (None when it does not apply)."""
    return edits_or_reason(finding, text)[0]


DEEP_STACK_BYTES = 512 * 1024 * 1024  # reserved address space; only the pages used are committed
DEEP_RECURSION_LIMIT = 50_000  # libcst recurses per nesting level: a 325-term sum needs ~4,000 frames
_DEEP_LOCK = threading.Lock()


def call_with_deep_stack(func, *args):
    """`func(*args)`; on RecursionError once more in a thread with a large stack and a higher
    (bounded) recursion limit, so a deeply nested expression still gets its fix."""
    try:
        return func(*args)
    except RecursionError:
        pass
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = func(*args)
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    with _DEEP_LOCK:
        old_limit = sys.getrecursionlimit()
        old_size = threading.stack_size(DEEP_STACK_BYTES)
        try:
            sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
            thread = threading.Thread(target=target, name="dslint-deep-fix", daemon=True)
            thread.start()
        finally:
            threading.stack_size(old_size)
        try:
            thread.join()
        finally:
            sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def edit(lines: LineIndex, start: int, end: int, content: str) -> Edit:
    return Edit(content=content, start_offset=start, end_offset=end, start=lines.location(start), end=lines.location(end))


def diff_to_edit(old: str, new: str) -> Optional[list[Edit]]:
    """The smallest single edit that turns `old` into `new` (None when equal)."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return [edit(LineIndex(old), prefix, len(old) - suffix, new[prefix:len(new) - suffix])]


def _smallest(text: str, lines: LineIndex, start: int, end: int, content: str) -> Optional[list[Edit]]:
    """The edit `diff_to_edit(text, new)` would give, for `new` = `text` with [start, end) replaced
    by `content`, found without scanning the unchanged parts of the file."""
    size, removed = len(content), end - start
    new_length = len(text) - removed + size

    def new_at(i: int) -> str:
        if i < start:
            return text[i]
        return content[i - start] if i < start + size else text[i - size + removed]

    limit = min(len(text), new_length)
    prefix = start
    while prefix < limit and text[prefix] == new_at(prefix):
        prefix += 1
    if prefix == len(text) == new_length:
        return None
    suffix = min(len(text) - end, limit - prefix)  # the text after the change is the same in both
    while suffix < limit - prefix and text[len(text) - 1 - suffix] == new_at(new_length - 1 - suffix):
        suffix += 1
    replacement = "".join(new_at(i) for i in range(prefix, new_length - suffix))
    return [edit(lines, prefix, len(text) - suffix, replacement)]


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, int]:
    """Apply non-overlapping edits (later ones that overlap are skipped). Returns (text, applied)."""
    chosen: list[Edit] = []
    last_end = -1
    for e in sorted(edits, key=lambda e: (e.start_offset, e.end_offset)):
        if e.start_offset < last_end or (e.start_offset == last_end and chosen and e.start_offset == e.end_offset == chosen[-1].start_offset):
            continue
        chosen.append(e)
        last_end = e.end_offset
    out = text
    for e in reversed(chosen):
        out = out[: e.start_offset] + e.content + out[e.end_offset:]
    return out, len(chosen)


def parses(kind: str, text: str) -> bool:
    """Does the fixed text still parse? A fix that breaks a file is never written."""
    if kind == "python":
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return False
        return True
    if kind == "dsconfig":
        import json

        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    return True


# -- libcst codemods ------------------------------------------------------------------------

_PARSED: dict = {}  # text -> (module, positions): the last few files, shared by their findings' fixes


def _parse_with_positions(text: str):
    """libcst module and node positions of `text`, or None when libcst cannot parse it.

    Several findings in one file each build their fix; libcst trees are immutable (codemods
    return new trees), so one parse serves them all.
    """
    if text in _PARSED:
        return _PARSED[text]
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        parsed = None
    else:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        parsed = (wrapper.module, wrapper.resolve(PositionProvider))
    if len(_PARSED) >= 4:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[text] = parsed
    return parsed


def codemod_fixer(name: str):
    """Register a libcst codemod `func(module, positions, params) -> new module | None`.

    `positions` maps each libcst node to its CodeRange (1-based line, 0-based column in
    characters), so a codemod finds the node at the finding's position.
    """

    def decorator(func):
        CODEMODS.add(name)

        @fixer(name)
        def run(text: str, params: dict) -> Optional[list[Edit]]:
            if len(text) >= WINDOW_MIN_CHARS:
                window = _Window.around(text, params)
                if window is not None:
                    edits = window.run(func, params)
                    if edits is not _WHOLE_FILE and (edits is not None or len(text) > WHOLE_FILE_MAX_CHARS):
                        return edits
            parsed = _parse_with_positions(text)
            if parsed is None:
                return None
            module, positions = parsed
            new_module = func(module, positions, params)
            if new_module is None:
                return None
            return diff_to_edit(text, new_module.code)

        return func

    return decorator


# -- the window: the codemod sees only the statements it needs ------------------------------

WINDOW_MIN_CHARS = 0  # every file gets a window: libcst costs ~50 s per MB (parse, positions, one pass)
WHOLE_FILE_MAX_CHARS = 100_000  # where the window cannot serve a fix, a file this small is read whole
_WHOLE_FILE = object()  # the window cannot serve this fix: parse the whole file
_UNPARSED = object()
_WINDOWS: dict = {}  # text -> the last window built on it: the fixes of one file share its parse

_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try, ast.Match) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_TREES: dict = {}  # text -> its ast module (None if it does not parse), for the last few files


def remember_tree(text: str, tree: ast.Module) -> None:
    """The check's own parse of `text`, for the fixes' windows (so a fixable file is parsed once)."""
    if len(_TREES) >= 4:
        _TREES.pop(next(iter(_TREES)))
    _TREES[text] = tree


def _tree(text: str) -> Optional[ast.Module]:
    if text not in _TREES:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if len(_TREES) >= 4:
            _TREES.pop(next(iter(_TREES)))
        _TREES[text] = tree
    return _TREES[text]


def _first_row(stmt: ast.stmt) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists inside a compound statement (body, else, except and case bodies, finally)."""
    blocks = [getattr(stmt, name, None) for name in ("body", "orelse", "finalbody")]
    blocks += [h.body for h in getattr(stmt, "handlers", ())] + [c.body for c in getattr(stmt, "cases", ())]
    return [b for b in blocks if b and isinstance(b[0], ast.stmt)]


def _has_import(stmt: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(stmt))


def _left_out(block: list[ast.stmt], rows: set[int], top: bool, out: list[tuple[int, int]]) -> None:
    """Collect the (first, last) rows of the statements of `block` the fix does not need.

    Kept: every statement holding one of `rows` (a compound one with its own block pruned the
    same way), the statement after it (a fix may insert after it), the first statement of a
    block (it stays valid Python), and at module level every simple statement and anything
    holding an import (the import table a codemod adds to). A statement sharing a line with
    another is kept too.
    """
    previous_held = False
    for index, stmt in enumerate(block):
        first, last = _first_row(stmt), stmt.end_lineno or stmt.lineno
        held = any(first <= row <= last for row in rows)
        compound = isinstance(stmt, _COMPOUND)
        needed = held or previous_held or (index == 0 and not top) or \
            (top and (not compound or (not isinstance(stmt, _DEFINITIONS) and _has_import(stmt))))
        alone = (index == 0 or first > (block[index - 1].end_lineno or 0)) and \
            (index == len(block) - 1 or last < _first_row(block[index + 1]))
        if needed or not alone:
            if compound and (held or not top or previous_held):
                for inner in _blocks(stmt):
                    _left_out(inner, rows, False, out)
        else:
            out.append((first, last))
        previous_held = held


def _remember_window(text: str, window: Optional["_Window"]) -> Optional["_Window"]:
    _WINDOWS.pop(text, None)
    if len(_WINDOWS) >= 4:
        _WINDOWS.pop(next(iter(_WINDOWS)))
    if window is not None:
        _WINDOWS[text] = window
    return window


def _joined(ranges: list[tuple[int, int]], text: str, lines: LineIndex) -> list[tuple[int, int]]:
    """Left-out row ranges with the blank and comment rows between two of them left out too
    (between 7,000 left-out functions they would be 14,000 blank rows for the window's diff)."""
    out: list[list[int]] = []
    starts = lines.line_starts

    def blank_or_comment(row: int) -> bool:
        line = text[starts[row - 1]:starts[row] if row < len(starts) else len(text)].strip()
        return not line or line.startswith("#")

    for first, last in ranges:
        if out and all(blank_or_comment(r) for r in range(out[-1][1] + 1, first)):
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return [(a, b) for a, b in out]


def _rows_of(params: dict) -> set[int]:
    """The rows a fix names: `row`, `loop_row`, ... and the start and end rows of span tuples."""
    rows = {v for k, v in params.items() if k.endswith("row") and isinstance(v, int)}
    for value in params.values():
        if isinstance(value, (tuple, list)):
            rows.update(v for span in value if isinstance(span, tuple) and len(span) == 4
                        and all(isinstance(x, int) for x in span) for v in (span[0], span[2]))
    return rows


class _Window:
    """The part of a module a fix needs (`_left_out` says what it leaves out), whole lines each,
    with node positions reported in the file's own rows: a fix in a long function of a long
    file parses, positions and rewrites a few statements instead of the whole module."""

    def __init__(self, text: str, lines: LineIndex, segments: list[tuple[int, int]], rows: frozenset = frozenset()):
        self.text, self.lines, self.rows = text, lines, rows
        self._parsed = _UNPARSED
        self.first_rows: list[int] = []  # window row (1-based) where each segment starts
        self.segments = segments  # (first row, last row) in the file, inclusive
        self.window_lines: list[str] = []
        self.line_offsets: list[int] = []  # file offset of each window line
        self.line_segment: list[int] = []
        starts = lines.line_starts
        for number, (first, last) in enumerate(segments):
            self.first_rows.append(len(self.window_lines) + 1)
            for row in range(first, last + 1):
                start = starts[row - 1]
                end = starts[row] if row < len(starts) else len(text)
                if start == end:
                    continue  # the empty "row" after a final line end
                self.window_lines.append(text[start:end])
                self.line_offsets.append(start)
                self.line_segment.append(number)

    @classmethod
    def around(cls, text: str, params: dict) -> Optional["_Window"]:
        """The window for a fix, the file's last one when it holds the fix's rows."""
        rows = _rows_of(params)
        window = _WINDOWS.get(text)
        if window is None or not rows <= window.rows:
            window = _remember_window(text, cls.build(text, rows))
        return window

    @classmethod
    def build(cls, text: str, rows: set[int]) -> Optional["_Window"]:
        if not rows or text.count("\r") != text.count("\r\n"):  # a lone CR ends a row for Python, not for the window
            return None
        tree = _tree(text)
        if tree is None:
            return None
        lines = LineIndex(text)
        total = len(lines.line_starts)
        left_out: list[tuple[int, int]] = []
        _left_out(tree.body, rows, True, left_out)
        segments, row = [], 1
        for first, last in _joined(sorted(left_out), text, lines):
            if first > row:
                segments.append((row, first - 1))
            row = max(row, last + 1)
        if row <= total:
            segments.append((row, total))
        if not segments:
            return None
        return cls(text, lines, segments, frozenset(rows))

    def _file_row(self, window_row: int) -> int:
        number = max(0, bisect.bisect_right(self.first_rows, window_row) - 1)
        return self.segments[number][0] + window_row - self.first_rows[number]

    def _parse(self):
        """The window's libcst module and node positions in file rows, once; None if it does not parse."""
        if self._parsed is _UNPARSED:
            import libcst as cst
            from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

            try:
                wrapper = MetadataWrapper(cst.parse_module("".join(self.window_lines)), unsafe_skip_copy=True)
            except cst.ParserSyntaxError:
                self._parsed = None
            else:
                row = self._file_row
                self._parsed = (wrapper.module, {
                    node: CodeRange(CodePosition(row(r.start.line), r.start.column), CodePosition(row(r.end.line), r.end.column))
                    for node, r in wrapper.resolve(PositionProvider).items()})
        return self._parsed

    def run(self, func, params: dict):
        """The codemod's edits in file offsets, or _WHOLE_FILE when the window cannot say."""
        parsed = self._parse()
        if parsed is None:
            return _WHOLE_FILE
        new_module = func(parsed[0], parsed[1], params)
        if new_module is None:
            return None
        return self._edits(new_module.code)

    def _left_out_before(self, line: int) -> bool:
        """Were file lines left out just before window line `line` (or after the last one)?"""
        if line == 0:
            return self.segments[0][0] > 1
        if line == len(self.window_lines):
            return self.segments[-1][1] < len(self.lines.line_starts)
        return self.line_segment[line] != self.line_segment[line - 1]

    def _edits(self, new_source: str):
        import difflib

        old = self.window_lines
        if "".join(old) == new_source:
            return None
        parts = new_source.split("\n")  # (not splitlines: it also splits at \x0c, \x1c, \u2028, ...)
        new = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        pieces = []  # (start, end, content) in file offsets
        # The lines a codemod changes are few: match only between the common head and tail
        # (difflib is quadratic in runs of equal lines).
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
            tail += 1
        matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
            if i1 < i2:
                if self.line_segment[i1] != self.line_segment[i2 - 1]:
                    return _WHOLE_FILE  # the change spans lines the window left out
                start = self.line_offsets[i1]
                end = self.line_offsets[i2 - 1] + len(old[i2 - 1])
            elif self._left_out_before(i1):
                # before or after the lines left out: a decorator for the next function or code
                # for the end of the one before, the window cannot tell
                return _WHOLE_FILE
            elif i1 == len(old):
                start = end = self.line_offsets[i1 - 1] + len(old[i1 - 1])  # at the end of the last segment
            else:
                start = end = self.line_offsets[i1]
            pieces.append((start, end, "".join(new[j1:j2])))
        # One edit, as for a small file (the file's own text between the changed places).
        content = "".join(piece + self.text[end:(pieces[k + 1][0] if k + 1 < len(pieces) else end)]
                          for k, (_, end, piece) in enumerate(pieces))
        return _smallest(self.text, self.lines, pieces[0][0], pieces[-1][1], content)


def node_at(positions, node_type, row: int, column: int, end_row: int = None, end_column: int = None):
    """The libcst node of `node_type` starting at (row, column) (1-based row, 1-based column).

    With an end given, the node must end there too (the innermost such node wins).
    """
    best = None
    for node, where in positions.items():
        if not isinstance(node, node_type):
            continue
        if where.start.line == row and where.start.column == column - 1:
            if end_row is not None and (where.end.line, where.end.column) != (end_row, end_column - 1):
                continue
            best = node
    return best


def with_import(module, package: str, name: str):
    """`module` with `from package import name`, as libcst's AddImportsVisitor adds it: merged first
    into a `from package import ...` of the leading import block (one import per line, after a
    docstring or `__strict__` line), else as a new line after that block, with a blank line before
    what follows; unchanged when the block imports it already (or `*`). The visitor itself pulls in
    libcst.matchers (~0.17 s of import, serial before the pool forks) and walks every node to change
    a few leading lines; tests/test_fix_imports.py holds this function to the visitor's output."""
    import libcst as cst

    body = list(module.body)
    start = 1 if body and _skipped_first(body[0]) else 0
    end = start
    while end < len(body) and isinstance(body[end], cst.SimpleStatementLine) and len(body[end].body) == 1 \
            and isinstance(body[end].body[0], (cst.Import, cst.ImportFrom)):
        end += 1
    for index in range(start, end):
        statement = body[index].body[0]
        if not isinstance(statement, cst.ImportFrom) or statement.relative or statement.module is None \
                or _dotted_cst(statement.module) != package:
            continue
        if isinstance(statement.names, cst.ImportStar) or \
                any(alias.asname is None and _dotted_cst(alias.name) == name for alias in statement.names):
            return module
    for index in range(start, end):
        statement = body[index].body[0]
        if isinstance(statement, cst.ImportFrom) and not statement.relative and statement.module is not None \
                and _dotted_cst(statement.module) == package:
            merged = statement.with_changes(names=[cst.ImportAlias(name=cst.Name(name)), *statement.names])
            body[index] = body[index].with_changes(body=[merged])
            return module.with_changes(body=body)
    after = body[end:]
    if after and (not after[0].leading_lines or after[0].leading_lines[0].comment is not None):
        after[0] = after[0].with_changes(leading_lines=(cst.EmptyLine(), *after[0].leading_lines))
    line = cst.parse_statement(f"from {package} import {name}", config=module.config_for_parsing)
    return module.with_changes(body=[*body[:end], line, *after])


def _skipped_first(statement) -> bool:
    """A leading docstring (one plain string) or `__strict__ = ...`: new imports go below it."""
    import libcst as cst

    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    only = statement.body[0]
    if isinstance(only, cst.Expr):
        return isinstance(only.value, cst.SimpleString)
    return isinstance(only, cst.Assign) and len(only.targets) == 1 and \
        isinstance(only.targets[0].target, cst.Name) and only.targets[0].target.value == "__strict__"


def _dotted_cst(node) -> str:
    import libcst as cst

    if isinstance(node, cst.Attribute):
        return f"{_dotted_cst(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def keyword_arg(name: str, value):
    """A libcst `name=value` argument written the PEP 8 way (no spaces around `=`)."""
    import libcst as cst

    return cst.Arg(keyword=cst.Name(name), value=value,
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def append_keyword(call, name: str, value):
    """`call` with `name=value` appended, keeping its trailing-comma style."""
    import libcst as cst

    args = list(call.args)
    new_arg = keyword_arg(name, value)
    if args:
        last = args[-1]
        if last.comma is not cst.MaybeSentinel.DEFAULT:
            new_arg = new_arg.with_changes(comma=last.comma)  # `f(a,)` stays `f(a, x=1,)`
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, new_arg])


@fixer("edits")
def _literal_edits(text: str, params: dict) -> Optional[list[Edit]]:
    """Edits computed when the finding was made (JSON and shell fixes): (start, end, content)."""
    lines = LineIndex(text)
    out = []
    for start, end, content, expected in params["edits"]:
        if text[start:end] != expected:  # the file changed since the check: do not guess
            return None
        out.append(edit(lines, start, end, content))
    return out
