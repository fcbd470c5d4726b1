"""Shell words with their expansions, and a small lexer for Makefile recipes and `#SBATCH` lines.

A `Word` keeps the character offsets of its raw text and a list of parts (literal text, `$VAR`,
`${VAR:-default}`, `$(...)`, `$((...))`, make's `$(VAR)`), so that its value can be computed
later from the variables assigned before it. Shell scripts are read by tree-sitter-bash
(launch/bash.py), which builds the same words; Makefile recipes (make's `$(VAR)` and `$$`) and
`#SBATCH` directive lines are lexed here. The lexer never raises: an unterminated quote or
substitution runs to the end of the input.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# Parts of a word. "lit": literal text; "var": $NAME or ${NAME}; "param": ${NAME<op>...} (text is
# the name, default the text after ":-" or "-"); "cmd": $(...) or `...`; "arith": $((...));
# "makevar": make's $(NAME) / ${NAME} in a Makefile recipe; "special": $1, $@, $? ...
LIT, VAR, PARAM, CMD, ARITH, MAKEVAR, SPECIAL = "lit", "var", "param", "cmd", "arith", "makevar", "special"

OPERATOR_CHARS = ";&|()<>"
# Characters with no special meaning inside an unquoted word (`#` only starts a comment at a
# word's start, which the main loop checks before this).
_PLAIN_RUN = re.compile(r"[^\s\\'\"$`;&|()<>]+")
# Characters with no special meaning inside double quotes.
_DQUOTE_RUN = re.compile(r'[^"\\$`]+')
# Longest first, so that "&&" wins over "&".
OPERATORS = ("&&", "||", ";;", "|&", ">>", "<<", "&>", ">&", "<&", ";", "&", "|", "(", ")", "<", ">")
REDIRECTIONS = frozenset({">>", "<<", "&>", ">&", "<&", "<", ">"})


@dataclass(frozen=True)
class WordPart:
    kind: str
    text: str
    quoted: bool = False
    default: str | None = None
    # A bash array, `(--nnodes 2 "$X")`: its element words (the part itself is CMD, not a literal)
    elements: tuple = field(default=(), compare=False, hash=False)


@dataclass
class Word:
    """One shell word: raw text is source[start:end]."""

    start: int
    end: int
    parts: list[WordPart] = field(default_factory=list)

    def literal_prefix(self) -> str:
        """The literal text before the first expansion (used to spot `NAME=` assignments)."""
        out = []
        for part in self.parts:
            if part.kind != LIT:
                break
            out.append(part.text)
        return "".join(out)

    @property
    def is_literal(self) -> bool:
        for part in self.parts:
            if part.kind != LIT:
                return False
        return True

    def literal(self) -> str:
        return "".join(p.text for p in self.parts if p.kind == LIT)


@dataclass(frozen=True)
class Operator:
    op: str  # one of OPERATORS or "\n"
    start: int
    end: int


def _is_name_start(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _is_name_char(ch: str) -> bool:
    return _is_name_start(ch) or ("0" <= ch <= "9")


class _Lexer:
    def __init__(self, text: str, start: int, end: int, make_mode: bool):
        self.text = text
        self.pos = start
        self.end = end
        self.make_mode = make_mode
        self.items: list[Word | Operator] = []
        self.word: Word | None = None
        self.lit: list[str] = []
        self.lit_quoted = False

    # -- word building -------------------------------------------------------------------
    def _begin_word(self) -> None:
        if self.word is None:
            self.word = Word(self.pos, self.pos)

    def _add_char(self, ch: str, quoted: bool) -> None:
        self._begin_word()
        if self.lit and self.lit_quoted != quoted:
            self._flush_lit()
        self.lit_quoted = quoted
        self.lit.append(ch)

    def _flush_lit(self) -> None:
        if self.lit and self.word is not None:
            self.word.parts.append(WordPart(LIT, "".join(self.lit), self.lit_quoted))
        self.lit = []

    def _add_text(self, text: str) -> None:
        """A run of unquoted ordinary characters."""
        self._begin_word()
        if self.lit and self.lit_quoted:
            self._flush_lit()
        self.lit_quoted = False
        self.lit.append(text)

    def _add_part(self, part: WordPart) -> None:
        self._begin_word()
        self._flush_lit()
        assert self.word is not None
        self.word.parts.append(part)

    def _end_word(self, at: int) -> None:
        if self.word is None:
            return
        self._flush_lit()
        self.word.end = at
        self.items.append(self.word)
        self.word = None

    # -- scanning helpers ----------------------------------------------------------------
    def _peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < self.end else ""

    def _scan_balanced(self, i: int, open_ch: str, close_ch: str) -> int:
        """From just after an opening bracket, return the offset just after its closing one."""
        depth = 1
        text, end = self.text, self.end
        while i < end:
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "'" and open_ch == "(":
                close = text.find("'", i + 1, end)
                i = end if close == -1 else close + 1
                continue
            if ch == open_ch:
                depth += 1
            elif ch == close_ch:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return end

    def _scan_dollar(self, quoted: bool) -> None:
        """At a `$`: read one expansion (or a lone literal `$`)."""
        text, i = self.text, self.pos
        nxt = self._peek(1)
        if self.make_mode:
            if nxt == "$":  # `$$` is one `$` given to the shell
                self.pos += 1
                self._scan_shell_dollar(quoted)
                return
            if nxt in "({":
                close = ")" if nxt == "(" else "}"
                stop = self._scan_balanced(i + 2, nxt, close)
                name = text[i + 2 : stop - 1] if text[stop - 1 : stop] == close else text[i + 2 : stop]
                self._add_part(WordPart(MAKEVAR, name.strip(), quoted))
                self.pos = stop
                return
            if _is_name_char(nxt):  # `$X`: a one-letter make variable
                self._add_part(WordPart(MAKEVAR, nxt, quoted))
                self.pos += 2
                return
        self._scan_shell_dollar(quoted)

    def _scan_shell_dollar(self, quoted: bool) -> None:
        text, i = self.text, self.pos
        nxt = self._peek(1)
        if nxt == "(" and self._peek(2) == "(":
            stop = self._scan_balanced(i + 3, "(", ")")
            if text[stop : stop + 1] == ")":
                stop += 1
            self._add_part(WordPart(ARITH, text[i:stop], quoted))
            self.pos = stop
        elif nxt == "(":
            stop = self._scan_balanced(i + 2, "(", ")")
            self._add_part(WordPart(CMD, text[i:stop], quoted))
            self.pos = stop
        elif nxt == "{":
            stop = self._scan_balanced(i + 2, "{", "}")
            inner = text[i + 2 : stop - 1] if text[stop - 1 : stop] == "}" else text[i + 2 : stop]
            self._add_part(_parameter_part(inner, quoted))
            self.pos = stop
        elif nxt and _is_name_start(nxt):
            j = i + 1
            while j < self.end and _is_name_char(text[j]):
                j += 1
            self._add_part(WordPart(VAR, text[i + 1 : j], quoted))
            self.pos = j
        elif nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
            self._add_part(WordPart(SPECIAL, nxt, quoted))
            self.pos += 2
        elif nxt == "'" and not quoted:
            self._scan_ansi_c_quote()
        else:
            self._add_char("$", quoted)
            self.pos += 1

    def _scan_ansi_c_quote(self) -> None:
        """`$'...'`: literal with backslash escapes (only the common ones are decoded)."""
        escapes = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}
        self._begin_word()
        i = self.pos + 2
        text, end = self.text, self.end
        while i < end and text[i] != "'":
            if text[i] == "\\" and i + 1 < end:
                self._add_char(escapes.get(text[i + 1], text[i + 1]), True)
                i += 2
                continue
            self._add_char(text[i], True)
            i += 1
        self.pos = min(i + 1, end)

    def _scan_single_quote(self) -> None:
        self._begin_word()
        close = self.text.find("'", self.pos + 1, self.end)
        stop = self.end if close == -1 else close
        if stop > self.pos + 1:  # the whole quoted run at once (an empty one adds nothing)
            self._add_char(self.text[self.pos + 1 : stop], True)
        if close == -1:  # unterminated: still a (quoted, possibly empty) word
            self._flush_lit()
        self.pos = self.end if close == -1 else close + 1
        if not self.lit and self.word is not None and not self.word.parts:
            self.word.parts.append(WordPart(LIT, "", True))

    def _scan_double_quote(self) -> None:
        self._begin_word()
        self.pos += 1
        start_parts = len(self.word.parts) if self.word else 0
        had_lit = bool(self.lit)
        text = self.text
        while self.pos < self.end:
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                break
            if ch == "\\" and self.pos + 1 < self.end:
                nxt = text[self.pos + 1]
                if nxt == "\n":
                    self.pos += 2
                    continue
                if nxt in '$`"\\':
                    self._add_char(nxt, True)
                    self.pos += 2
                    continue
                self._add_char("\\", True)
                self.pos += 1
                continue
            if ch == "$":
                self._scan_dollar(quoted=True)
                continue
            if ch == "`":
                self._scan_backtick(quoted=True)
                continue
            match = _DQUOTE_RUN.match(text, self.pos, self.end)  # ordinary characters up to the next special one
            if match is None:  # a backslash as the last character
                self._add_char(ch, True)
                self.pos += 1
                continue
            self._add_char(match.group(), True)
            self.pos = match.end()
        if self.word is not None and not self.lit and len(self.word.parts) == start_parts and not had_lit:
            self.word.parts.append(WordPart(LIT, "", True))  # "" is a word too

    def _scan_backtick(self, quoted: bool) -> None:
        i = self.pos + 1
        text = self.text
        while i < self.end and text[i] != "`":
            i += 2 if text[i] == "\\" else 1
        stop = min(i + 1, self.end)
        self._add_part(WordPart(CMD, text[self.pos : stop], quoted))
        self.pos = stop

    def _scan_operator(self) -> None:
        text = self.text
        for op in OPERATORS:
            if text.startswith(op, self.pos) and self.pos + len(op) <= self.end:
                self._end_word(self.pos)
                self.items.append(Operator(op, self.pos, self.pos + len(op)))
                self.pos += len(op)
                return
        self._add_char(text[self.pos], False)  # unreachable for OPERATOR_CHARS, kept for safety
        self.pos += 1

    # -- main loop -----------------------------------------------------------------------
    def run(self) -> list[Word | Operator]:
        text = self.text
        while self.pos < self.end:
            ch = text[self.pos]
            if ch == "\\":
                nxt = self._peek(1)
                if nxt == "\n":  # line continuation: as if neither character were there
                    self.pos += 2
                elif nxt == "\r" and self._peek(2) == "\n":
                    self.pos += 3
                elif nxt:
                    self._add_char(nxt, True)
                    self.pos += 2
                else:
                    self.pos += 1
            elif ch in " \t\r\f\v":
                self._end_word(self.pos)
                self.pos += 1
            elif ch == "\n":
                self._end_word(self.pos)
                self.items.append(Operator("\n", self.pos, self.pos + 1))
                self.pos += 1
            elif ch == "#" and self.word is None:
                stop = text.find("\n", self.pos, self.end)
                self.pos = self.end if stop == -1 else stop
            elif ch == "'":
                self._scan_single_quote()
            elif ch == '"':
                self._scan_double_quote()
            elif ch == "$":
                self._scan_dollar(quoted=False)
            elif ch == "`":
                self._scan_backtick(quoted=False)
            elif ch in OPERATOR_CHARS:
                if ch in "<>" and self.word is not None and not self.word.parts and "".join(self.lit).isdigit():
                    self.word = None  # `2>&1`: the `2` is a file descriptor, not a word
                    self.lit = []
                self._scan_operator()
            else:
                match = _PLAIN_RUN.match(text, self.pos, self.end)
                if match:
                    self._add_text(match.group())
                    self.pos = match.end()
                else:
                    self._add_char(ch, False)
                    self.pos += 1
        self._end_word(self.pos)
        return self.items


def _parameter_part(inner: str, quoted: bool) -> WordPart:
    """`${...}`: a plain name, or a name with an operator (`${X:-8}`, `${#X}`, `${X%.*}`)."""
    j = 0
    while j < len(inner) and _is_name_char(inner[j]):
        j += 1
    name = inner[:j]
    if name and j == len(inner) and _is_name_start(name[0]):
        return WordPart(VAR, name, quoted)
    if name.isdigit() and j == len(inner):
        return WordPart(SPECIAL, name, quoted)  # `${10}`: a positional parameter
    rest = inner[j:]
    if name and _is_name_start(name[0]) and rest in ("[@]", "[*]"):
        return WordPart(PARAM, name + rest, quoted)  # every element of an array
    if name and rest.startswith("[") and rest != "[0]":
        return WordPart(PARAM, inner, quoted)  # `${A[2]}`: not the first element, which `$A` is
    for op in (":-", "-"):
        if name and rest.startswith(op):
            return WordPart(PARAM, name, quoted, default=rest[len(op):])
    # `${1%.py}`: the whole text, so that it is not taken for `$1` itself
    return WordPart(PARAM, inner if name.isdigit() else name or inner, quoted)


def lex(text: str, start: int = 0, end: int | None = None, make_mode: bool = False) -> list[Word | Operator]:
    """Lex text[start:end] into words and operators, with offsets into the whole text."""
    stop = len(text) if end is None else end
    return _Lexer(text, start, stop, make_mode).run()
