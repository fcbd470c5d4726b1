"""Shell scripts read with tree-sitter-bash into the plain command structure launch.py walks.

The syntax tree gives each simple command its words (with the parts launch.py resolves: literal
text, `$VAR`, `${VAR:-default}`, `$(...)`, `$((...))`), and the structure around it: functions,
`if`/`case` branches, loops, subshells. A heredoc body is text, never a command. Positions are
character offsets into the whole text (tree-sitter counts bytes). A syntax error region is
blanked and the text parsed again, so the commands around it still count; nothing here raises.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Optional, Sequence, Union

from .lexer import ARITH, CMD, LIT, SPECIAL, VAR, Word, WordPart, _parameter_part


class Words(Sequence):
    """A command's words, each built from its syntax node when first read: most commands of a
    script (mkdir, echo, pip) are dropped after their first word, so most words never are."""

    def __init__(self, nodes: list, builder: "_Builder"):
        self._nodes = nodes
        self._words: list[Optional[Word]] = [None] * len(nodes)
        self._builder = builder

    def __len__(self) -> int:
        return len(self._nodes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._nodes)))]
        word = self._words[index]
        if word is None:
            word = self._words[index] = self._builder.word(self._nodes[index])
        return word


@dataclass
class Simple:
    """One simple command: its words (assignments first, as written) and its extent, the
    redirections included."""

    words: Sequence  # of Word
    start: int
    end: int


@dataclass
class Branches:
    """`if`/`case`: exactly one branch runs, or none when `exhaustive` is False."""

    branches: list[list["Node"]]
    exhaustive: bool


@dataclass
class Loop:
    """`for`/`while`/`until`: the body runs any number of times."""

    body: list["Node"]
    variable: Optional[str] = None  # the `for` variable


@dataclass
class Function:
    name: str
    body: list["Node"]


@dataclass
class Subshell:
    """`( ... )`: its assignments do not reach the commands after it."""

    body: list["Node"]


@dataclass
class Clobber:
    """`(( i++ ))`, `(( j = i * 2 ))`: variables changed in a way the walk does not compute."""

    names: list[str]


Node = Union[Simple, Branches, Loop, Function, Subshell, Clobber]


@dataclass
class Script:
    nodes: list[Node] = field(default_factory=list)
    called: set = field(default_factory=set)  # literal command names: which functions are called


MAX_REPAIRS = 8  # rounds of blanking syntax errors before the rest is read as it stands


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_shell(text: str, start: int = 0, end: Optional[int] = None, repairs: int = MAX_REPAIRS) -> Script:
    """The commands of text[start:end], with offsets into the whole text; at most `repairs`
    rounds of taking syntax errors out (tree-sitter is slow on text full of them)."""
    source = text[start:len(text) if end is None else end]
    length = len(source)
    for attempt in range(repairs + 1):
        data = source.encode("utf-8", "surrogatepass")
        tree = _parser().parse(data)
        if not tree.root_node.has_error or attempt == repairs:
            break
        repaired = _repair(source, data, tree.root_node)
        if repaired == source:
            break
        source = repaired
    builder = _Builder(data, _char_offsets(source, data), start, length)
    script = Script(called=builder.called)
    script.nodes = builder.statements(tree.root_node.children)
    return script


def _repair(source: str, data: bytes, root) -> str:
    """The text with its syntax errors taken out: an unterminated quote closed at the end (as
    the shell would read it, to the end of the input), else the rest of each error's row blanked
    (every error region of the tree at once: each parse of broken text is slow)."""
    errors = _error_starts(root)
    if not errors:
        return source
    head = data[errors[0].start_byte:errors[0].start_byte + 1]
    if head in (b"'", b'"') and data.count(head) % 2 == 1:
        return source + head.decode()
    for node in reversed(errors):
        source = _blank_rest_of_row(source, *node.start_point)
    return source


def _error_starts(root) -> list:
    """Where each error region of the tree starts, in order (see _first_error)."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            start = _first_error(node) if node.type == "ERROR" else node
            found.append(start if start is not None else node)
            continue
        stack.extend(child for child in reversed(node.children) if child.has_error or child.is_missing)
    return found


def _first_error(node):
    """The first, innermost syntax error: inside an ERROR node, its first part that is not a
    whole statement (the statements before it parsed fine)."""
    while True:
        nxt = None
        for child in node.children:
            if child.type == "ERROR" or child.is_missing or child.has_error:
                nxt = child
                break
        if nxt is None:
            if node.is_missing:
                return node
            if node.type != "ERROR":
                return None
            for child in node.children:
                if not (child.is_named and child.type in _WHOLE_STATEMENTS):
                    return child
            return node
        node = nxt


def _blank_rest_of_row(text: str, row: int, byte_column: int) -> str:
    """The text with the row blanked from the error on: the command before it on that row, and
    every row after it, are read again (an unterminated quote no longer swallows the file)."""
    lines = text.split("\n")
    if row >= len(lines):
        return text
    line = lines[row]
    column = len(line.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "ignore"))
    if not line[column:].strip():
        return text
    lines[row] = line[:column] + " " * (len(line) - column)  # same length: offsets stay where they were
    return "\n".join(lines)


def _char_offsets(text: str, data: bytes) -> Optional[list[int]]:
    """byte offset -> character offset, or None when they are the same (ASCII text)."""
    if len(data) == len(text):
        return None
    table = [0] * (len(data) + 1)
    b = 0
    for i, ch in enumerate(text):
        code = ord(ch)
        width = 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        for k in range(width):
            table[b + k] = i
        b += width
    table[b] = len(text)
    return table


_WHOLE_STATEMENTS = frozenset({"command", "redirected_statement", "declaration_command", "variable_assignment",
                               "variable_assignments", "pipeline", "list", "comment", "function_definition"})
_STATEMENT_LISTS = frozenset({"compound_statement", "do_group", "program"})
_SKIPPED = frozenset({"comment", "test_command", "heredoc_body"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_ARITH_ASSIGNED = re.compile(r"([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*([A-Za-z_]\w*)|"
                             r"([A-Za-z_]\w*)\s*(?:\+\+|--)")
_ESCAPE_IN_WORD = re.compile(r"\\(.)", re.S)
_ESCAPE_IN_DQUOTE = re.compile(r'\\([$`"\\\n])')
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}


class _Builder:
    def __init__(self, data: bytes, offsets: Optional[list[int]], base: int, length: int):
        self.data = data
        self.offsets = offsets
        self.base = base
        self.length = length  # a quote the repair added lies past the end: positions stop before it
        self.called: set = set()

    def pos(self, byte: int) -> int:
        return self.base + min(self.length, byte if self.offsets is None else self.offsets[byte])

    def raw(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "surrogatepass")

    # -- statements ----------------------------------------------------------------------
    def statements(self, nodes) -> list[Node]:
        out: list[Node] = []
        for node in nodes:
            if node.is_named:
                self.statement(node, out)
        return out

    def statement(self, node, out: list[Node]) -> None:
        kind = node.type
        if kind in _SKIPPED:
            return
        if kind == "command":
            self.command(node, node.end_byte, out)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None:
                return
            end = max([body.end_byte] + [_redirect_end(c) for c in node.children if c.type in _REDIRECTS])
            if body.type == "command":
                self.command(body, end, out)
            else:
                self.statement(body, out)
        elif kind in ("declaration_command", "unset_command", "variable_assignment", "variable_assignments"):
            parts = [node] if kind == "variable_assignment" else node.children
            words = Words([c for c in parts if c.type not in _REDIRECTS and c.type != "comment"], self)
            if len(words):
                out.append(Simple(words, self.pos(node.start_byte), self.pos(node.end_byte)))
        elif kind in ("pipeline", "list", "negated_command"):
            for child in node.children:
                if child.is_named:
                    self.statement(child, out)
        elif kind == "compound_statement" and node.child_count and node.children[0].type == "((":
            names = [a or b or c for a, b, c in _ARITH_ASSIGNED.findall(self.raw(node))]
            if names:
                out.append(Clobber(names))
        elif kind in _STATEMENT_LISTS:
            out.extend(self.statements(node.children))
        elif kind == "subshell":
            out.append(Subshell(self.statements(node.children)))
        elif kind == "if_statement":
            self.if_statement(node, out)
        elif kind == "case_statement":
            self.case_statement(node, out)
        elif kind in ("for_statement", "c_style_for_statement", "while_statement", "until_statement"):
            self.loop(node, out)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                out.append(Function(self.raw(name), self.statements([body])))
        elif kind == "ERROR":  # what is still whole inside an unrepaired error region
            for child in node.children:
                if child.is_named and not child.has_error and child.type != "ERROR":
                    self.statement(child, out)

    def command(self, node, end_byte: int, out: list[Node]) -> None:
        words = []
        for child in node.children:
            if not child.is_named or child.type in _REDIRECTS or child.type == "comment":
                continue
            if child.type == "command_name":
                child = child.children[0] if child.child_count == 1 else child
                if child.type == "word":
                    self.called.add(self.raw(child))
            words.append(child)
        if words:
            out.append(Simple(Words(words, self), self.pos(node.start_byte), self.pos(end_byte)))

    def if_statement(self, node, out: list[Node]) -> None:
        branches: list[list[Node]] = []
        current: Optional[list] = None
        exhaustive = False
        for child in node.children:
            if child.type in ("if", "fi", ";", "&", "\n"):
                continue
            if child.type == "then":
                current = []
                branches.append(current)
            elif child.type == "elif_clause":
                conditions, body = self._clause(child.children)
                out.extend(conditions)  # a condition runs whenever its clause is reached
                branches.append(body)
            elif child.type == "else_clause":
                branches.append(self.statements(child.children))
                exhaustive = True
            elif child.is_named:
                if current is None:
                    self.statement(child, out)  # the `if` condition
                else:
                    self.statement(child, current)
        out.append(Branches(branches, exhaustive))

    def _clause(self, children) -> tuple[list[Node], list[Node]]:
        conditions: list[Node] = []
        body: list[Node] = []
        target = conditions
        for child in children:
            if child.type == "then":
                target = body
            elif child.is_named:
                self.statement(child, target)
        return conditions, body

    def case_statement(self, node, out: list[Node]) -> None:
        branches = []
        exhaustive = False
        for item in node.children:
            if item.type != "case_item":
                continue
            value = item.child_by_field_name("value")
            if value is not None and self.raw(value) == "*":
                exhaustive = True
            body: list[Node] = []
            seen_paren = False
            for child in item.children:
                if child.type == ")":
                    seen_paren = True
                elif seen_paren and child.is_named:
                    self.statement(child, body)
            branches.append(body)
        out.append(Branches(branches, exhaustive))

    def loop(self, node, out: list[Node]) -> None:
        variable = node.child_by_field_name("variable") if node.type == "for_statement" else None
        body = node.child_by_field_name("body")
        inner: list[Node] = []
        if node.type in ("while_statement", "until_statement"):
            condition = node.child_by_field_name("condition")
            if condition is not None:
                self.statement(condition, inner)
        if body is not None:
            inner.extend(self.statements([body]))
        out.append(Loop(inner, self.raw(variable) if variable is not None else None))

    # -- words ---------------------------------------------------------------------------
    def word(self, node) -> Word:
        word = Word(self.pos(node.start_byte), self.pos(node.end_byte))
        if node.type == "word":  # most words: plain text
            text = self.data[node.start_byte:node.end_byte].decode("utf-8", "surrogatepass")
            if "\\" not in text:
                word.parts.append(WordPart(LIT, text, False))
                return word
        self.parts(node, word.parts, quoted=False)
        if not word.parts:
            word.parts.append(WordPart(LIT, "", True))
        return word

    def parts(self, node, into: list[WordPart], quoted: bool, lead: int = 0) -> None:
        """`lead`: characters of the node's text before its own (see the "string" case)."""
        kind = node.type
        if not node.is_named:  # `export`, `local`: the keyword of a declaration
            _add_literal(into, self.raw(node), quoted)
        elif kind in ("word", "number", "variable_name", "extglob_pattern", "special_variable_name"):
            text = self.raw(node)
            if "\\" in text:
                text = _ESCAPE_IN_WORD.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)
            _add_literal(into, text, quoted)
        elif kind == "raw_string":
            _add_literal(into, self.raw(node)[1:-1], True)
        elif kind in ("string", "translated_string"):
            before = len(into)
            for child in (node.children[0].children if kind == "translated_string" else node.children):
                if child.type == "string_content":
                    _add_literal(into, _ESCAPE_IN_DQUOTE.sub(_dquote_escape, self.raw(child)), True)
                elif child.is_named:
                    # (tree-sitter-bash puts the blanks between two expansions, `"$A $B"`, into the
                    # second one's node: they are the string's text)
                    raw = self.raw(child)
                    lead = len(raw) - len(raw.lstrip())
                    if lead:
                        _add_literal(into, raw[:lead], True)
                    self.parts(child, into, quoted=True, lead=lead)
            if len(into) == before:
                into.append(WordPart(LIT, "", True))  # "" is a word too
        elif kind == "ansi_c_string":
            body = self.raw(node)[2:-1]
            _add_literal(into, re.sub(r"\\(.)", lambda m: _ANSI_ESCAPES.get(m.group(1), m.group(1)), body), True)
        elif kind == "concatenation":
            for child in node.children:
                if child.is_named:
                    self.parts(child, into, quoted)
        elif kind == "variable_assignment":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            operator = next((c for c in node.children if c.type in ("=", "+=")), None)
            _add_literal(into, self.raw(name) + (operator.type if operator is not None else "="), False)
            if value is not None:
                self.parts(value, into, quoted)
        elif kind == "simple_expansion":
            name = self.raw(node)[lead + 1:]
            if name[:1].isdigit() and len(name) > 1:  # `$10` is `$1` then `0`
                into.append(WordPart(SPECIAL, name[0], quoted))
                _add_literal(into, name[1:], quoted)
                return
            into.append(WordPart(VAR if name[:1].isalpha() or name[:1] == "_" else SPECIAL, name, quoted))
        elif kind == "expansion":
            into.append(_parameter_part(self.raw(node)[lead + 2:-1], quoted))
        elif kind == "arithmetic_expansion":
            into.append(WordPart(ARITH, self.raw(node)[lead:], quoted))
        elif kind == "array":
            words = tuple(self.word(c) for c in node.children if c.is_named and c.type != "comment")
            into.append(WordPart(CMD, self.raw(node), quoted, elements=words))
        else:  # $(...), `...`, <(...), {a,b}, arrays, and whatever else: not a literal
            into.append(WordPart(CMD, self.raw(node)[lead:], quoted))


def _dquote_escape(match: re.Match) -> str:
    return "" if match.group(1) == "\n" else match.group(1)


def _add_literal(into: list[WordPart], text: str, quoted: bool) -> None:
    if into and into[-1].kind == LIT and into[-1].quoted == quoted:
        into[-1] = WordPart(LIT, into[-1].text + text, quoted)
    else:
        into.append(WordPart(LIT, text, quoted))


def _redirect_end(node) -> int:
    """Where a redirection ends on its line (a heredoc's body is not part of the command)."""
    if node.type == "heredoc_redirect":
        for child in node.children:
            if child.type == "heredoc_start":
                return child.end_byte
    return node.end_byte


# -- $(( )) ------------------------------------------------------------------------------

_ARITH_TOKEN = re.compile(r"\s*(?:(\d+)|\$\{([A-Za-z_]\w*)\}|\$?([A-Za-z_]\w*)|(\*\*|[-+*/%()]))")


def arith_value(text: str, lookup: Callable[[str], Optional[str]]) -> Optional[int]:
    """The value of `$((expr))` with + - * / % ** and parentheses, when every variable it reads
    holds an integer; None otherwise (an unknown operand, another operator, division by zero)."""
    inner = text[3:-2] if text.startswith("$((") and text.endswith("))") else None
    if inner is None:
        return None
    tokens: list = []
    pos = 0
    while pos < len(inner):
        if inner[pos:].strip() == "":
            break
        match = _ARITH_TOKEN.match(inner, pos)
        if match is None:
            return None
        pos = match.end()
        number, braced, name, op = match.groups()
        if number is not None:
            tokens.append(int(number, 8) if len(number) > 1 and number.startswith("0") else int(number))
        elif op is not None:
            tokens.append(op)
        else:
            value = lookup(braced or name)
            if value is None or not re.fullmatch(r"\s*-?\d+\s*", value):
                return None
            tokens.append(int(value))
    try:
        result, rest = _sum(tokens)
    except (ValueError, IndexError, ZeroDivisionError, TypeError):
        return None
    return result if not rest else None


def _sum(tokens: list) -> tuple[int, list]:
    value, tokens = _product(tokens)
    while tokens and tokens[0] in ("+", "-"):
        op, (right, tokens) = tokens[0], _product(tokens[1:])
        value = value + right if op == "+" else value - right
    return value, tokens


def _product(tokens: list) -> tuple[int, list]:
    value, tokens = _power(tokens)
    while tokens and tokens[0] in ("*", "/", "%"):
        op, (right, tokens) = tokens[0], _power(tokens[1:])
        if op == "*":
            value *= right
        else:  # C semantics: the quotient truncates toward zero, the remainder takes the dividend's sign
            quotient = abs(value) // abs(right) * (1 if (value >= 0) == (right > 0) else -1)
            value = quotient if op == "/" else value - quotient * right
    return value, tokens


def _power(tokens: list) -> tuple[int, list]:
    base, tokens = _unary(tokens)
    if tokens and tokens[0] == "**":
        exponent, tokens = _power(tokens[1:])
        if exponent < 0 or exponent > 64:
            raise ValueError("exponent")
        return base ** exponent, tokens
    return base, tokens


def _unary(tokens: list) -> tuple[int, list]:
    head = tokens[0]
    if head in ("+", "-"):
        value, rest = _unary(tokens[1:])
        return (-value if head == "-" else value), rest
    if head == "(":
        value, rest = _sum(tokens[1:])
        if not rest or rest[0] != ")":
            raise ValueError("unbalanced")
        return value, rest[1:]
    if isinstance(head, int):
        return head, tokens[1:]
    raise ValueError(head)
