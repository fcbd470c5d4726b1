"""Parse launch commands in shell scripts, sbatch files and Makefiles into plain data.

`parse_launch_file(text)` finds every command that starts training through a launcher
(torchrun, `python -m torch.distributed.run|launch`, deepspeed, accelerate launch, srun, mpirun,
`fabric run` / `lightning run model`, or plain `python script.py`), with the chain of launchers,
each option and its exact position, the environment the command sees, the script and its
arguments, and facts derived the way each launcher derives them. It never raises.

Shell scripts come through tree-sitter-bash (launch/bash.py): the walk below follows functions
(read at their first call), `if`/`case` branches (each a candidate launch), loops and subshells,
and resolves words from the variables assigned before them. Makefiles keep a small reader
(lexer.lex); README/docs Markdown is read through its fenced shell blocks
(launch/markdown.py).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from dslint.textpos import LineIndex

from . import flags
from .launchers import COMMAND_WORDS, LAUNCHERS, PYTHON_MODULES, WORD_PATTERN, launcher_kind, wraps_torchrun
from .facts import derive_facts
from .model import (
    EnvValue,
    HeredocWrite,
    LaunchCommand,
    LaunchFile,
    Launcher,
    LaunchOption,
    SbatchDirective,
    SbatchDirectives,
    ShellArg,
    heredoc_key,
)
from .options import join_spans, parse_argparse, parse_getopt, parse_mpirun, unread_words
from .bash import Branches, Clobber, Function, Loop, Script, Simple, Subshell, arith_value, parse_shell
from .lexer import ARITH, CMD, LIT, MAKEVAR, PARAM, SPECIAL, VAR, Operator, Word, WordPart, _parameter_part, lex
from .markdown import shell_view

__all__ = [
    "parse_launch_file",
    "is_launch_file",
    "LaunchFile",
    "LaunchCommand",
    "Launcher",
    "LaunchOption",
    "EnvValue",
    "ShellArg",
    "SbatchDirective",
    "SbatchDirectives",
]

# Stands for the part of a value the file does not show; a value holding it is unknown.
UNKNOWN = "\ue000"
# The launch file's own folder (`$(dirname "$0")`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`): unknown
# to every use but `cd`, which then moves relative to the file itself (ShellArg.script_relative).
SCRIPT_FOLDER = UNKNOWN + "\ue001"

SHELL_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".zsh", ".ksh")
MAKE_NAMES = ("Makefile", "makefile", "GNUmakefile")
LAUNCHER_WORDS = re.compile(r"\b(" + WORD_PATTERN + r"|python[0-9.]*)\b")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?=)")
_MAKE_ASSIGNMENT = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|:=|::=|\+=|=|!=)\s*(.*)$")
_PYTHON_WORD = re.compile(r"python[0-9.]*")
_RESERVED_PREFIX = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}",
                              "time", "esac"})
_BLOCK_OPENERS = frozenset({"if", "while", "until", "for", "select", "case"})
_BLOCK_CLOSERS = frozenset({"fi", "done", "esac"})
_SKIPPED_COMMANDS = frozenset({"for", "case", "select", "function", "[[", "[", "test", "echo", "printf", "cd"})
_PASS_THROUGH = frozenset({"nohup", "exec", "command", "builtin"})
_PYTHON_MODULE_LAUNCHERS = PYTHON_MODULES


def is_launch_file(path: str, text: str) -> bool:
    """Whether a file is worth parsing: a shell/sbatch script or a Makefile that names a launcher."""
    name = os.path.basename(str(path))
    looks_like_shell = name.endswith(SHELL_SUFFIXES) or text.startswith("#!") and "sh" in text[:64].split("\n", 1)[0]
    looks_like_make = name in MAKE_NAMES or name.endswith(".mk")
    if not (looks_like_shell or looks_like_make):
        return False
    return "#SBATCH" in text or LAUNCHER_WORDS.search(text) is not None


def parse_launch_file(text: str, kind_hint: str | None = None) -> LaunchFile:
    """Parse a shell script, sbatch file or Makefile into its launch commands.

    kind_hint: "make", or the file's path (a `Makefile`/`*.mk` name means make): recipe lines
    and make variables. Anything else reads the text as a shell script (#SBATCH directives are
    read in both). Garbage yields an empty LaunchFile; this function never raises.
    """
    try:
        return _parse(text, kind_hint)
    except Exception:  # a linter must survive any input; this is a bug to fix, not to show
        return LaunchFile()


# -- file walking --------------------------------------------------------------------------

@dataclass
class _State:
    """What the walk knows at the current point of the file."""

    index: LineIndex
    text: str
    shell_vars: dict[str, str] = field(default_factory=dict)  # may hold UNKNOWN
    make_vars: dict[str, str] = field(default_factory=dict)
    env: dict[str, EnvValue] = field(default_factory=dict)
    sbatch: SbatchDirectives = field(default_factory=SbatchDirectives)
    commands: list[LaunchCommand] = field(default_factory=list)
    # One frame per open if/case/loop: the values its assignments replaced. After the block a
    # variable it changed is unknown, since the block may not have run.
    blocks: list[dict[str, Optional[str]]] = field(default_factory=list)
    # Variables whose value came from a `${X:-default}` (see ShellArg.from_default), and whether
    # the text resolved last used one.
    defaulted: set = field(default_factory=set)
    used_default: bool = False
    # Shell functions: bodies by name, the names a command calls somewhere in the script, and
    # those whose body was walked already (at its first call, or where it is defined if never called).
    functions: dict = field(default_factory=dict)
    called: set = field(default_factory=set)
    walked_functions: set = field(default_factory=set)
    # The directory the last `cd DIR` moved to (link.py resolves the script and config paths there);
    # one per open block, since after a block its `cd` may not have run.
    cwd: Optional[ShellArg] = None
    cwd_frames: list = field(default_factory=list)
    knows_self: bool = True  # `$0` is the file walked (not in a README block, where it is the shell)
    # `$1`.. `$@` `$#`: the words of the function call being walked (or of a `set --`), as the call
    # resolved them; None where they are unknown (the script's own arguments).
    positional: Optional["_Positional"] = None
    pwd_as_dot: bool = False  # (while computing EnvValue.in_launch_dir) `$PWD` and `$(pwd)` read as `.`
    # The files heredocs wrote so far (heredoc_key -> HeredocWrite; body None where a branch or loop may
    # or may not have written it), and every heredoc write in walk order (LaunchFile.heredocs).
    heredocs: dict = field(default_factory=dict)
    heredoc_log: list = field(default_factory=list)
    sourced: tuple = ()  # (path as written, cwd value) of each `source FILE` so far (LaunchCommand.sourced)
    # How many more copies of the rest of a block the walk may make after an `if`/`case` whose branches
    # leave different values (see _walk_nodes); then the values they differ in are unknown after it.
    forks_left: int = 8

    def set_shell_var(self, name: str, value: str, from_default: bool = False) -> None:
        if self.blocks and name not in self.blocks[-1]:
            self.blocks[-1][name] = self.shell_vars.get(name)
        self.shell_vars[name] = value
        if from_default:
            self.defaulted.add(name)
        else:
            self.defaulted.discard(name)

    def open_block(self) -> None:
        self.blocks.append({})
        self.cwd_frames.append(self.cwd)

    def close_block(self) -> None:
        if not self.blocks:
            return
        frame = self.blocks.pop()
        before_cwd = self.cwd_frames.pop() if self.cwd_frames else self.cwd
        if self.cwd is not before_cwd:
            self.cwd = replace(self.cwd, value=None) if self.cwd is not None else None
        for name, before in frame.items():
            if self.shell_vars.get(name) != before:
                self.set_shell_var(name, UNKNOWN)
                if name in self.env:
                    old = self.env[name]
                    self.env[name] = EnvValue(name, None, old.source, old.span)


@dataclass(frozen=True)
class _Positional:
    """The positional parameters: `args` as resolved; `more` when words we cannot count follow
    them (a call's `$EXTRA` or `"$@"` of unknown arguments may expand to any number of words)."""

    args: tuple = ()
    more: bool = False


# What sbatch puts in the batch script's environment from its directives (sbatch(1), OUTPUT
# ENVIRONMENT VARIABLES): `--nproc_per_node $SLURM_CPUS_PER_TASK` and the like then resolve.
_SBATCH_ENVIRONMENT = {
    "nodes": ("SLURM_JOB_NUM_NODES", "SLURM_NNODES"),
    "cpus_per_task": ("SLURM_CPUS_PER_TASK",),
    "ntasks_per_node": ("SLURM_NTASKS_PER_NODE",),
    # ("Number of GPUs allocated to the batch step"; "Requested GPU count per allocated node", set with --gpus-per-node)
    "gpus_per_node": ("SLURM_GPUS_ON_NODE", "SLURM_GPUS_PER_NODE"),
}


def _parse(text: str, kind_hint: Optional[str]) -> LaunchFile:
    if _is_markdown_hint(kind_hint):
        return _parse_markdown(text)
    state = _State(LineIndex(text), text)
    _read_sbatch_directives(state)
    from_sbatch = set()
    # A heterogeneous job sets each component's variables with a `_HET_GROUP_<n>` suffix.
    parts = [(f"_HET_GROUP_{i}", c) for i, c in enumerate(state.sbatch.components)] or [("", state.sbatch)]
    for suffix, directives in parts:
        for attr, names in _SBATCH_ENVIRONMENT.items():
            directive = getattr(directives, attr)
            if directive is not None and directive.value is not None and directive.value.isdigit():
                for name in names:
                    state.shell_vars[name + suffix] = directive.value
                    from_sbatch.add(name + suffix)
    if _is_make_hint(kind_hint):
        _walk_makefile(state)
    else:
        _walk_script(state, parse_shell(text))
    variables = {k: v for k, v in {**state.make_vars, **state.shell_vars}.items()
                 if UNKNOWN not in v and not (k in from_sbatch and state.shell_vars.get(k) == v)}
    exports = {name: env.value for name, env in state.env.items() if env.source == "export"}
    return LaunchFile(commands=state.commands, sbatch=state.sbatch, variables=variables, heredocs=state.heredoc_log,
                      exports=exports)


MARKDOWN_REPAIRS = 0


def _parse_markdown(text: str) -> LaunchFile:
    """Each fenced shell block of a Markdown file on its own (a README's blocks are often
    alternatives), read in place so that positions are the .md file's."""
    view, blocks = shell_view(text)
    state = _State(LineIndex(view), view, knows_self=False)
    variables: dict[str, str] = {}
    for start, end in blocks:
        if LAUNCHER_WORDS.search(view, start, end) is None:
            continue  # `pip install ...`
        state.shell_vars, state.env, state.defaulted = {}, {}, set()
        state.functions, state.called, state.walked_functions = {}, set(), set()
        state.cwd, state.cwd_frames = None, []  # an install block's `cd ./other-repo/` is not this block's
        state.positional = None
        state.heredocs = {}
        # A block that does not parse is more likely usage text than a script: no repairs.
        _walk_script(state, parse_shell(view, start, end, repairs=MARKDOWN_REPAIRS))
        variables.update({k: v for k, v in state.shell_vars.items() if UNKNOWN not in v})
    return LaunchFile(commands=state.commands, sbatch=state.sbatch, variables=variables, heredocs=state.heredoc_log)


def _is_markdown_hint(kind_hint: Optional[str]) -> bool:
    return bool(kind_hint) and str(kind_hint).lower().endswith(".md")


def _is_make_hint(kind_hint: Optional[str]) -> bool:
    if not kind_hint:
        return False
    name = os.path.basename(str(kind_hint))
    return kind_hint == "make" or name in MAKE_NAMES or name.endswith(".mk")


def _split_simple_commands(items: list) -> list[tuple[list[Word], int]]:
    """Words between control operators (newline ; & && || | ( ) ;;), with redirections and
    their targets dropped; each with the end offset of the command, redirections included."""
    commands: list[tuple[list[Word], int]] = []
    current: list[Word] = []
    end = 0
    skip_next = False
    for item in items:
        if isinstance(item, Operator):
            if item.op in ("<", ">", ">>", "<<", "&>", ">&", "<&"):
                skip_next = True
                end = item.end
                continue
            if current:
                commands.append((current, end))
            current = []
            skip_next = False
            continue
        end = item.end
        if skip_next:
            skip_next = False
            continue
        current.append(item)
    if current:
        commands.append((current, end))
    return commands


def _walk_commands(state: _State, items: list, make_mode: bool) -> None:
    for words, end in _split_simple_commands(items):
        _handle_simple_command(state, words, end, make_mode)


# -- shell scripts (sources/launch/bash.py) ------------------------------------------------

def _walk_script(state: _State, script: Script) -> None:
    state.called |= script.called
    _walk_nodes(state, script.nodes)


def _walk_nodes(state: _State, nodes: list) -> None:
    for index, node in enumerate(nodes):
        if isinstance(node, Branches) and state.forks_left > 0:
            outcomes = _branch_outcomes(state, node)
            if _known_alternatives(outcomes) and any(_launches_in(n) for n in nodes[index + 1:]):
                # `case $SIZE in 7b) NGPU=8; CFG=ds_7b.json ;; ...`: the values travel together, so the
                # rest of the block runs once per branch (its launches are one candidate launch each).
                state.forks_left -= len(outcomes) - 1
                ends = []
                walked = state.walked_functions  # (what any branch walked stays walked)
                for outcome in outcomes:
                    _restore(state, outcome)
                    state.walked_functions |= walked
                    _walk_nodes(state, nodes[index + 1:])
                    ends.append(_snapshot(state))
                _merge(state, ends)
                return
            _merge(state, outcomes)
            continue
        if isinstance(node, Simple):
            head = node.words[0]
            name = head.literal() if head.is_literal else None
            if name in state.functions:
                _call_function(state, name, node.words[1:])
            elif name in ("shift", "set"):
                _set_positional(state, name, node.words[1:])
            elif name in _READS_INTO:
                _read_into(state, name, node.words[1:])
            elif name is not None and os.path.basename(name) in _HEREDOC_WRITERS:
                _heredoc_write(state, node)
            elif name in ("source", ".") and len(node.words) > 1:
                sourced = _resolve_word(node.words[1], state, False)
                if len(sourced) == 1 and sourced[0].value:
                    state.sourced += ((sourced[0].value, state.cwd.value if state.cwd is not None else None),)
            else:
                _handle_simple_command(state, node.words, node.end, make_mode=False)
        elif isinstance(node, Clobber):
            _forget(state, node.names)
        elif isinstance(node, Function):
            state.functions[node.name] = node.body
            if node.name not in state.called:  # never called: its launches count where it is defined
                _call_function(state, node.name)
        elif isinstance(node, Branches):
            _walk_branches(state, node)
        elif isinstance(node, Loop):
            _walk_loop(state, node)
        elif isinstance(node, Subshell):
            before = _snapshot(state)
            _walk_nodes(state, node.body)
            written = state.heredocs  # (a file a subshell writes stays written)
            _restore(state, before)
            state.heredocs = written


# Builtins that set the variables they name to values the file does not show (`unset` unsets them).
_READS_INTO = frozenset({"read", "let", "getopts", "mapfile", "readarray", "unset"})


def _read_into(state: _State, builtin: str, words: list) -> None:
    names = [w.literal().split("=", 1)[0] for w in words if w.is_literal and not w.literal().startswith("-")]
    if builtin == "getopts":
        names = names[1:2]
    names = [n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    if builtin == "unset":
        for name in names:
            state.shell_vars.pop(name, None)
            state.shell_vars.pop(f"{name}[@]", None)
            state.env.pop(name, None)
        return
    _forget(state, names)


# -- heredocs that write files -------------------------------------------------------------

# `cat <<EOF > PATH` and `tee PATH <<EOF`: the commands that copy a heredoc into a file.
_HEREDOC_WRITERS = frozenset({"cat", "tee"})
_CONTROL = frozenset({";", "&", "&&", "||", "|", "|&", ";;", "(", ")", "\n"})


def _heredoc_write(state: _State, node: Simple) -> None:
    """Record the files `cat`/`tee` write from a heredoc on this command line (state.heredocs): the
    body as the file receives it. A target written with content the file does not show (`cat a.json
    <<EOF > b`, `>> PATH` to a file a heredoc wrote, two heredocs on one line) is recorded as unknown."""
    text = state.text
    line_end = text.find("\n", node.end)
    while line_end > 0 and text[line_end - 1] == "\\":  # `\` continues the command on the next row
        line_end = text.find("\n", line_end + 1)
    if line_end == -1:
        return
    items = lex(text, node.start, line_end)
    head = items[0] if items and isinstance(items[0], Word) else None
    if head is None:
        return
    tee = os.path.basename(head.literal()) == "tee"
    delimiters: list[tuple[str, bool, bool]] = []  # (delimiter, quoted, strip tabs)
    targets: list[tuple[Word, bool]] = []  # (word, appends)
    operands = False  # cat's file operands (it then reads them, not the heredoc)
    append = False
    k = 1
    while k < len(items):
        item = items[k]
        after = items[k + 1] if k + 1 < len(items) else None
        if isinstance(item, Operator):
            if item.op in _CONTROL:
                break
            if item.op == "<<" and isinstance(after, Word):
                raw = text[after.start:after.end]
                dash = raw.startswith("-")
                raw = raw[1:] if dash else raw
                delimiters.append((re.sub(r"[\"'\\]", "", raw), any(ch in raw for ch in "\"'\\"), dash))
            elif item.op in (">", ">>", "&>") and isinstance(after, Word) and not _is_fd_prefix(text, item):
                targets.append((after, item.op == ">>"))
            k += 2
            continue
        word = text[item.start:item.end]
        if isinstance(after, Operator) and after.start == item.end and word.isdigit():
            k += 1  # `2>`: the descriptor of the redirection that follows
            continue
        if tee and word in ("-a", "--append"):
            append = True
        elif not word.startswith("-") or word == "-":
            if tee:
                targets.append((item, append))
            elif word != "-":
                operands = True
        k += 1
    if not targets:
        return
    # A heredoc of a command before this one on the row (`cat <<A > a; cat <<B > b`, `cat <<EOF | tee b`):
    # its body comes first, and what this command writes is not read here.
    prior = _heredoc_before(text, node.start)
    if not delimiters and not prior:
        return
    body = _heredoc_body(text, line_end + 1, *delimiters[0][::2]) if len(delimiters) == 1 and not prior else None
    start = line_end + 1
    raw = text[start:body] if body is not None else ""
    quoted = bool(delimiters) and delimiters[0][1]
    content = None
    if body is not None and not operands:
        stripped = re.sub(r"(?m)^\t+", "", raw) if delimiters[0][2] else raw
        content = stripped if quoted else _expand_heredoc(stripped, state)
    command_span = state.index.span(node.start, line_end)
    for word, appends in targets:
        values = _resolve_word(word, state, make_mode=False)
        path = values[0].value if len(values) == 1 else None
        key = heredoc_key(state.cwd, path)
        if key is None or path in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            continue
        if appends:
            if key in state.heredocs:  # an append to a file a heredoc wrote: its content is no longer the body
                state.heredocs[key] = replace(state.heredocs[key], body=None)
            continue
        write = HeredocWrite(path, state.cwd, content, raw, state.index.span(start, start), quoted, command_span)
        state.heredocs[key] = write
        state.heredoc_log.append(write)


def _heredoc_before(text: str, start: int) -> bool:
    """Whether a command before `start` on its row has a heredoc (`cat <<A > a; cat <<B > b`)."""
    items = lex(text, text.rfind("\n", 0, start) + 1, start)
    return any(isinstance(item, Operator) and item.op == "<<" and k + 1 < len(items) and isinstance(items[k + 1], Word)
               for k, item in enumerate(items))


def _is_fd_prefix(text: str, operator: Operator) -> bool:
    """Whether the redirection has a descriptor other than stdout before it (`2> log`, `3>x`)."""
    i = operator.start
    while i > 0 and text[i - 1].isdigit():
        i -= 1
    digits = text[i:operator.start]
    return bool(digits) and digits != "1" and (i == 0 or text[i - 1].isspace())


def _heredoc_body(text: str, start: int, delimiter: str, strip_tabs: bool) -> Optional[int]:
    """Where the heredoc body that starts at `start` ends (the delimiter line's start); None when no row
    closes it."""
    offset = start
    while offset <= len(text):
        end = text.find("\n", offset)
        line = text[offset:len(text) if end == -1 else end]
        if (line.lstrip("\t") if strip_tabs else line).rstrip("\r") == delimiter:
            return offset
        if end == -1:
            return None
        offset = end + 1
    return None


_HEREDOC_EXPANSION = re.compile(r"\\([$`\\\n])|\$(\(\(|\(|\{)|\$([A-Za-z_][A-Za-z0-9_]*)|\$([0-9@*#?$!-])|`")


def _expand_heredoc(body: str, state: _State) -> str:
    r"""An unquoted heredoc's body as the shell expands it: `\$` `\\` escapes, `$VAR`, `${VAR...}`, `$((...))`
    with the variables known here; command substitutions and variables not known are UNKNOWN."""
    out: list[str] = []
    pos = 0
    for match in _HEREDOC_EXPANSION.finditer(body):
        if match.start() < pos:
            continue  # inside a substitution already read
        out.append(body[pos:match.start()])
        pos = match.end()
        escaped, opener, name, special = match.groups()
        if escaped is not None:
            out.append("" if escaped == "\n" else escaped)
        elif name is not None:
            out.append(_lookup(WordPart(VAR, name, True), state, False))
        elif special is not None:
            out.append(_lookup(WordPart(SPECIAL, special, True), state, False))
        elif opener is None:  # `...`
            close = body.find("`", pos)
            pos = len(body) if close == -1 else close + 1
            out.append(UNKNOWN)
        else:
            close = _closing(body, match.start() + 1)
            if close is None:
                out.append(UNKNOWN)
                pos = len(body)
                break
            inner = body[match.start():close + 1]
            pos = close + 1
            if opener == "{":
                out.append(_lookup(_parameter_part(inner[2:-1], True), state, False))
            elif opener == "((":
                out.append(_lookup(WordPart(ARITH, inner, True), state, False))
            else:
                out.append(UNKNOWN)
    out.append(body[pos:])
    return "".join(out)


def _closing(text: str, at: int) -> Optional[int]:
    """The offset of the bracket that closes the one at `at` (`(` or `{`), nesting counted; None if none."""
    open_ch = text[at]
    close_ch = ")" if open_ch == "(" else "}"
    depth = 0
    for i in range(at, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return None


def _forget(state: _State, names: list[str]) -> None:
    for name in names:
        state.set_shell_var(name, UNKNOWN)
        if f"{name}[@]" in state.shell_vars:
            state.set_shell_var(f"{name}[@]", UNKNOWN)
        old = state.env.get(name)
        if old is not None:
            state.env[name] = EnvValue(name, None, old.source, old.span)


def _call_function(state: _State, name: str, words: Optional[list[Word]] = None) -> None:
    """A function's launches are read once, at its first call, with the variables set then and
    the call's words as its positional parameters (unknown for a function never called)."""
    if name in state.walked_functions:
        return
    state.walked_functions.add(name)
    outer = state.positional
    state.positional = _positional_from(state, words) if words is not None else None
    _walk_nodes(state, state.functions[name])
    state.positional = outer


def _positional_from(state: _State, words: list[Word]) -> _Positional:
    """The positional parameters a call's (or `set --`'s) words give, up to the first word that
    may expand to a number of words we cannot tell."""
    args: list[ShellArg] = []
    for word in words:
        if _splices_positional(word) and (state.positional is None or state.positional.more):
            return _Positional(tuple(args) + (state.positional.args if state.positional is not None else ()), True)
        resolved = _resolve_word(word, state, make_mode=False)
        if any(arg.value is None for arg in resolved) and any(p.kind != LIT and not p.quoted for p in word.parts):
            return _Positional(tuple(args), True)  # an unquoted expansion we cannot read: 0, 1 or more words
        args.extend(resolved)
    return _Positional(tuple(args))


def _splices_positional(word: Word) -> bool:
    """The word is `"$@"`, `$@` or `$*`: as many words as there are parameters (`"$*"` is one)."""
    if len(word.parts) != 1:
        return False
    part = word.parts[0]
    return part.kind in (SPECIAL, PARAM) and part.text in ("@", "*") and not (part.quoted and part.text == "*")


def _set_positional(state: _State, builtin: str, words: list[Word]) -> None:
    """`shift [N]` drops the first N positional parameters; `set -- WORDS` replaces them."""
    if builtin == "shift":
        frame = state.positional
        if frame is None:
            return
        count = _resolve_text(words[0], state, make_mode=False) if words else "1"
        if not count.isdigit() or int(count) > len(frame.args):
            state.positional = None  # bash keeps them when N is too many; then `$1` is not what a reader thinks
        else:
            state.positional = _Positional(frame.args[int(count):], frame.more)
        return
    first = words[0].literal() if words and words[0].is_literal else None
    if first == "--":
        state.positional = _positional_from(state, words[1:])
    elif first is None or not first.startswith(("-", "+")):
        state.positional = None  # `set WORDS` (or a word we cannot read) sets them too


def _snapshot(state: _State) -> tuple:
    return (dict(state.shell_vars), dict(state.env), set(state.defaulted), set(state.walked_functions), state.cwd,
            state.positional, dict(state.heredocs))


def _restore(state: _State, snapshot: tuple) -> None:
    state.shell_vars, state.env = dict(snapshot[0]), dict(snapshot[1])
    state.defaulted, state.walked_functions = set(snapshot[2]), set(snapshot[3])
    state.cwd = snapshot[4]
    state.positional = snapshot[5]
    state.heredocs = dict(snapshot[6])


def _walk_branches(state: _State, node: Branches) -> None:
    """Each branch from the state before the `if`/`case`; after it, a variable the branches
    leave with different values is unknown. Every launch in a branch is a candidate launch."""
    _merge(state, _branch_outcomes(state, node))


def _branch_outcomes(state: _State, node: Branches) -> list[tuple]:
    """The state after each branch that goes on past the `if`/`case` (one that ends in `exit` does
    not), walked from the state before it; the state before too when no branch may run."""
    before = _snapshot(state)
    outcomes = [] if node.exhaustive else [before]
    walked = set(state.walked_functions)
    for branch in node.branches:
        _restore(state, before)
        _walk_nodes(state, branch)
        walked |= state.walked_functions
        if not _exits(branch):
            outcomes.append(_snapshot(state))
    state.walked_functions = walked
    return outcomes or [before]


def _exits(branch: list) -> bool:
    last = branch[-1] if branch else None
    return isinstance(last, Simple) and bool(last.words) and last.words[0].is_literal and \
        last.words[0].literal() == "exit"


def _known_alternatives(outcomes: list[tuple]) -> bool:
    """Do the branches leave some variables with different values, each of them known in every
    branch? (`if [ -z "$OUT" ]; then OUT=./out; fi` leaves `$1` or ./out: one unknown, nothing to fork on.)"""
    names = {n for o in outcomes for n in o[0]}
    differing = [n for n in names if len({o[0].get(n) for o in outcomes}) > 1]
    return bool(differing) and all(n in o[0] and UNKNOWN not in o[0][n] for n in differing for o in outcomes)


_LAUNCH_WORDS = ("torchrun", "deepspeed", "accelerate", "python", "srun", "mpirun", "launch")


def _launches_in(node) -> bool:
    """May this node start a launch (a cheap test on its words, functions and blocks included)?"""
    if isinstance(node, Simple):
        return any(w.is_literal and any(k in w.literal() for k in _LAUNCH_WORDS) for w in node.words[:4]) or \
            not (node.words and node.words[0].is_literal)
    children = getattr(node, "branches", None) or [getattr(node, "body", None) or []]
    return any(_launches_in(child) for branch in children for child in branch)


def _merge(state: _State, outcomes: list[tuple]) -> None:
    shell_vars: dict[str, str] = {}
    for name in dict.fromkeys(n for o in outcomes for n in o[0]):  # in order: output stays stable
        values = {o[0].get(name) for o in outcomes}
        shell_vars[name] = values.pop() if len(values) == 1 else UNKNOWN
    env: dict[str, EnvValue] = {}
    for name in dict.fromkeys(n for o in outcomes for n in o[1]):
        seen = [o[1].get(name) for o in outcomes]
        last = next(v for v in reversed(seen) if v is not None)
        same = all(v is not None and v.value == last.value for v in seen)
        env[name] = last if same else EnvValue(name, None, last.source, last.span)
    state.shell_vars, state.env = shell_vars, env
    state.defaulted = set().union(*(o[2] for o in outcomes))
    cwds = [o[4] for o in outcomes]
    if all(cwd == cwds[0] for cwd in cwds):
        state.cwd = cwds[0]
    else:  # a `cd` in some branches only, or to other folders: the folder after them is unknown
        state.cwd = replace(next(cwd for cwd in cwds if cwd is not None), value=None)
    frames = [o[5] for o in outcomes]
    state.positional = frames[0] if all(frame == frames[0] for frame in frames) else None
    heredocs: dict = {}
    for key in dict.fromkeys(k for o in outcomes for k in o[6]):
        writes = [o[6].get(key) for o in outcomes]
        first = next(w for w in writes if w is not None)
        heredocs[key] = first if all(w is first for w in writes) else replace(first, body=None)
    state.heredocs = heredocs


def _walk_loop(state: _State, node: Loop) -> None:
    """The body once, with the variables it changes (and the loop variable) unknown inside it,
    since a later iteration sees other values; after the loop they stay unknown."""
    before = _snapshot(state)
    commands, state.commands = state.commands, []
    logged = len(state.heredoc_log)
    _walk_nodes(state, node.body)  # a dry pass: which variables does the body change?
    del state.heredoc_log[logged:]
    changed = {n for n, v in state.shell_vars.items() if before[0].get(n) != v}
    changed_env = {n for n, v in state.env.items() if before[1].get(n) != v}
    shifts = state.positional != before[5]  # `while [ $# -gt 0 ]; do ... shift; done`
    state.commands = commands
    _restore(state, before)
    if shifts:
        state.positional = None
    for name in changed | ({node.variable} if node.variable else set()):
        state.set_shell_var(name, UNKNOWN)
    for name in changed_env:
        old = state.env.get(name)
        if old is not None:
            state.env[name] = EnvValue(name, None, old.source, old.span)
    _walk_nodes(state, node.body)
    for key, write in list(state.heredocs.items()):
        if before[6].get(key) is not write:  # the loop may run no time, or other times
            state.heredocs[key] = replace(write, body=None)
    for name in changed:
        state.set_shell_var(name, UNKNOWN)
    for name in changed_env & set(state.env):
        old = state.env[name]
        state.env[name] = EnvValue(name, None, old.source, old.span)
    if shifts:
        state.positional = None


def _walk_makefile(state: _State) -> None:
    """Top-level `NAME = value` lines are make variables; tab-indented lines are recipes."""
    text = state.text
    lines = text.split("\n")
    offset = 0
    in_recipe = False
    # GNU make runs each recipe line in a shell of its own (an `export` there is gone at the next
    # line) unless `.ONESHELL:` appears anywhere in the makefile.
    one_shell = any(line.startswith(".ONESHELL:") for line in lines)
    row = 0
    while row < len(lines):
        line = lines[row]
        start = offset
        # A logical line: `\` at the end joins the next one.
        end_row = row
        while lines[end_row].endswith("\\") and end_row + 1 < len(lines):
            end_row += 1
        logical_end = start + sum(len(lines[r]) + 1 for r in range(row, end_row + 1)) - 1
        offset = logical_end + 1
        row = end_row + 1
        if line.startswith("\t") and in_recipe:
            _handle_recipe(state, start + 1, logical_end, one_shell)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        assignment = _MAKE_ASSIGNMENT.match(text[start:logical_end].replace("\\\n", " "))
        if assignment and ":" not in assignment.group(1):
            _assign_make_variable(state, assignment, start)
            continue
        if ":" in stripped and not stripped.startswith(("if", "else", "endif", "include", "define")):
            in_recipe = True
            recipe_part = stripped.split(";", 1)
            if len(recipe_part) == 2 and ":" in recipe_part[0]:  # `target: deps ; command`
                semicolon = text.index(";", start)
                _handle_recipe(state, semicolon + 1, logical_end, one_shell)


def _assign_make_variable(state: _State, match: re.Match, line_start: int) -> None:
    name, op = match.group(1), match.group(2)
    value_start = line_start + match.start(3)
    words = lex(state.text, value_start, value_start + len(match.group(3)), make_mode=True)
    parts = [_resolve_text(w, state, make_mode=True) for w in words if isinstance(w, Word)]
    value = " ".join(parts) if op != "!=" else UNKNOWN
    if op == "?=" and name in state.make_vars:
        return
    if op == "+=" and name in state.make_vars:
        value = (state.make_vars[name] + " " + value).strip()
    state.make_vars[name] = value
    if match.group(0).startswith("export"):
        span = state.index.span(line_start, line_start + len(match.group(0).rstrip()))
        state.env[name] = EnvValue(name, _known(value), "export", span)


def _handle_recipe(state: _State, start: int, end: int, one_shell: bool = False) -> None:
    text = state.text
    if not one_shell:
        state.cwd = None  # each recipe line runs in a shell of its own
    shell_vars, env = dict(state.shell_vars), dict(state.env)
    while start < end and text[start] in "@-+ \t":  # make's recipe prefixes
        start += 1
    _walk_commands(state, lex(text, start, end, make_mode=True), make_mode=True)
    if not one_shell:  # (what the line's shell assigned or exported ends with it)
        state.shell_vars, state.env = shell_vars, env


# -- #SBATCH -------------------------------------------------------------------------------

_SBATCH_FIELDS = {
    "nodes": "nodes", "ntasks": "ntasks", "ntasks-per-node": "ntasks_per_node", "tasks-per-node": "ntasks_per_node",
    "gpus-per-node": "gpus_per_node", "gpus": "gpus", "gpus-per-task": "gpus_per_task",
    "cpus-per-task": "cpus_per_task", "job-name": "job_name",
}
_HETJOB_SEPARATORS = ("hetjob", "packjob")  # (packjob: the older name)
_SBATCH_SHORT_KEYS = {"N": "nodes", "n": "ntasks", "c": "cpus-per-task", "G": "gpus", "J": "job-name"}


def _read_sbatch_directives(state: _State) -> None:
    """`#SBATCH` at the start of a line, up to the first command line (src/sbatch/opt.c
    _opt_batch_script: "Stop parsing script if not a comment")."""
    text = state.text
    offset = 0
    components = [state.sbatch]
    for line in text.split("\n"):
        line_start, offset = offset, offset + len(line) + 1
        if line.startswith("#SBATCH"):
            body = line_start + len("#SBATCH")
            items = lex(text, body, line_start + len(line))
            args = [_resolve_word(w, state, False)[0] for w in items if isinstance(w, Word)]
            while args:
                split = next((i for i, a in enumerate(args) if a.value in _HETJOB_SEPARATORS), len(args))
                options, _ = parse_getopt(args[:split], 0, flags.SBATCH_LONG, flags.SBATCH_SHORT)
                for option in options:
                    _record_sbatch(components[-1], option)
                if split == len(args):
                    break
                # The next component; of the fields kept, only the job name carries over (the
                # heterogeneous_jobs.html list of propagated options; --nodes, --ntasks... reset).
                components.append(SbatchDirectives(job_name=components[-1].job_name))
                args = args[split + 1:]
            continue
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
    if len(components) > 1:
        state.sbatch = SbatchDirectives(all=[d for c in components for d in c.all], components=components)


def _record_sbatch(sbatch: SbatchDirectives, option: LaunchOption) -> None:
    key = _SBATCH_SHORT_KEYS.get(option.key, option.key)
    value = option.value
    directive = SbatchDirective(option.name, key, value, option.span, _count_of(key, value))
    sbatch.all.append(directive)
    if key == "gres":
        count = _gres_gpu_count(value)
        if count is not None:
            sbatch.gpus_per_node = SbatchDirective(option.name, key, value, option.span, count)
        return
    attr = _SBATCH_FIELDS.get(key)
    if attr:
        setattr(sbatch, attr, directive)


def _count_of(key: str, value: Optional[str]) -> Optional[int]:
    """The number a directive gives: `4`, `a100:4` for GPU counts; `2-4` node ranges stay None."""
    if value is None:
        return None
    if key.startswith("gpus"):
        value = value.rsplit(":", 1)[-1]
    return int(value) if value.isdigit() else None


def _gres_gpu_count(value: Optional[str]) -> Optional[int]:
    """`gpu:4`, `gpu:a100:4`, `gpu:4(S:0)`, `gpu` (one) in a comma list of GRES."""
    if value is None:
        return None
    for gres in value.split(","):
        fields = gres.split("(", 1)[0].split(":")
        if fields[0] == "gpu":
            if len(fields) == 1:
                return 1
            return int(fields[-1]) if fields[-1].isdigit() else None
    return None


# -- words ---------------------------------------------------------------------------------

def _lookup(part, state: _State, make_mode: bool) -> str:
    if part.kind == LIT:
        return part.text
    if state.pwd_as_dot and _names_pwd(part) and "PWD" not in state.shell_vars:
        return "."
    if part.kind == VAR:
        if part.text in state.defaulted:
            state.used_default = True
        return state.shell_vars.get(part.text, UNKNOWN) if not make_mode or part.text in state.shell_vars else UNKNOWN
    if state.positional is not None and part.kind in (SPECIAL, PARAM) and part.text != "0" \
            and (part.text.isdigit() or part.text in ("@", "*", "#")):
        return _positional_text(part, state.positional)
    if part.kind == PARAM:
        value = state.shell_vars.get(part.text.replace("[*]", "[@]"))
        if value:
            state.used_default = state.used_default or part.text in state.defaulted
            return value
        # `${X:-8}` with X not set by the script: the script as written runs with 8, which its
        # caller may change (ShellArg.from_default)
        if part.default is None:
            return UNKNOWN
        state.used_default = True
        return _default_text(part.default, state, make_mode)
    if part.kind == MAKEVAR:
        return state.make_vars.get(part.text, UNKNOWN)
    if part.kind == ARITH and not make_mode:
        value = arith_value(part.text, lambda name: _known(state.shell_vars.get(name, UNKNOWN)))
        return UNKNOWN if value is None else str(value)
    if part.kind == CMD and not make_mode and state.knows_self and _names_script_folder(part.text):
        return SCRIPT_FOLDER
    return UNKNOWN  # CMD, SPECIAL


def _default_text(default: str, state: _State, make_mode: bool) -> str:
    """The word after `:-` as bash expands it: its own expansions, then quote removal (`${X:-""}` is
    empty, `${X:-'a b'}` is `a b`); several words join with a space (split again where unquoted)."""
    if not any(ch in default for ch in "\\\"'$`"):
        return default
    words = [w for w in lex(default) if isinstance(w, Word)]
    return " ".join("".join(_lookup(p, state, make_mode) for p in w.parts) for w in words)


def _names_pwd(part) -> bool:
    """`$PWD`, `${PWD}`, `$(pwd)`, `` `pwd` ``: the folder the shell is in."""
    if part.kind in (VAR, PARAM):
        return part.text == "PWD"
    return part.kind == CMD and re.fullmatch(r"(?:\$\(|`)\s*pwd(?:\s+-[LP])?\s*(?:\)|`)", part.text) is not None


def _positional_text(part, frame: _Positional) -> str:
    """`$1`, `${2:-x}`, `$#`, and `$*`/`$@` inside a longer word, from the call's words."""
    if part.text == "#":
        return UNKNOWN if frame.more else str(len(frame.args))
    if part.text in ("@", "*"):
        values = [arg.value for arg in frame.args]
        if frame.more or None in values or (part.text == "@" and part.quoted and len(values) > 1):
            return UNKNOWN  # "a$@b" is several words; unquoted, joining then splitting is what bash does
        return " ".join(values)
    index = int(part.text)
    if index > len(frame.args) and frame.more:
        return UNKNOWN
    value = frame.args[index - 1].value if 0 < index <= len(frame.args) else ""
    if value is None:
        return UNKNOWN
    if value == "" and part.kind == PARAM and part.default is not None:
        if "$" in part.default or "`" in part.default:
            return UNKNOWN
        return " ".join(w.literal() for w in lex(part.default) if isinstance(w, Word))
    return value


def _splice_positional(word: Word, state: _State) -> Optional[list[ShellArg]]:
    """A word that is exactly `"$@"`, `$@` or `$*`: the call's words (None: not such a word)."""
    if state.positional is None or not _splices_positional(word):
        return None  # ("$*" is one word: _positional_text joins them)
    part, frame = word.parts[0], state.positional
    out: list[ShellArg] = []
    for arg in frame.args:
        if part.quoted or arg.value is None:
            out.append(arg)
        else:  # unquoted, each word is split again
            out.extend(ShellArg(piece, arg.raw, arg.span, arg.from_default) for piece in arg.value.split())
    if frame.more:  # the words we cannot count: one unknown word, as for an unknown `$VAR`
        out.append(ShellArg(None, state.text[word.start:word.end], state.index.span(word.start, word.end)))
    return out


def _resolve_text(word: Word, state: _State, make_mode: bool) -> str:
    """The word's text with its expansions; `state.used_default` tells whether one was a default."""
    state.used_default = False
    return "".join(_lookup(p, state, make_mode) for p in word.parts)


def _resolve_word(word: Word, state: _State, make_mode: bool) -> list[ShellArg]:
    """A word's value(s): an unquoted expansion whose value has spaces splits into several
    words (the shell's field splitting); each keeps the span of the original word. `"$@"` is the
    call's words, each with its own span."""
    spliced = None if make_mode else _splice_positional(word, state)
    if spliced is not None:
        return spliced
    value = _resolve_text(word, state, make_mode)
    defaulted = state.used_default
    raw = state.text[word.start:word.end]
    span = state.index.span(word.start, word.end)
    splits = any(p.kind in (VAR, PARAM, MAKEVAR, SPECIAL) and not p.quoted for p in word.parts) \
        or (len(word.parts) == 1 and word.parts[0].kind == PARAM and word.parts[0].text.endswith("[@]"))
    if splits and any(ch.isspace() for ch in value):
        return [ShellArg(_known(piece), raw, span, defaulted, split_unknown=piece == UNKNOWN)
                for piece in value.split()]
    if splits and value == "" and not any(p.quoted for p in word.parts):
        # An empty unquoted expansion vanishes; one empty through its default only is kept as a
        # word dslint cannot read (its caller may fill it), which a launcher's options skip.
        return [ShellArg(None, raw, span, True, empty_default=True)] if defaulted else []
    unread = value == UNKNOWN and any(p.kind in (VAR, PARAM, MAKEVAR, SPECIAL, CMD) and not p.quoted for p in word.parts)
    return [ShellArg(_known(value), raw, span, defaulted, split_unknown=unread)]


def _known(value: str) -> Optional[str]:
    return None if UNKNOWN in value else value


# -- one simple command --------------------------------------------------------------------

def _handle_simple_command(state: _State, words: list[Word], end: int, make_mode: bool) -> None:
    words = _strip_reserved_words(state, words)
    if not words:
        return
    first = words[0].literal_prefix()
    if first in ("cd", "pushd", "popd") and words[0].is_literal:
        _change_directory(state, words, make_mode)
        return
    if first in _SKIPPED_COMMANDS and words[0].is_literal:
        if first in _BLOCK_OPENERS:
            state.open_block()
        return
    inline: dict[str, EnvValue] = {}
    resolved: dict[str, str] = {}
    i = _take_assignments(state, words, 0, inline, resolved, make_mode)
    if i == len(words):  # only assignments: they set shell variables
        for name, env_value in inline.items():
            state.set_shell_var(name, resolved[name], env_value.from_default)
            state.env[name] = replace(env_value, source="assign")
        return
    head = words[i]
    if head.is_literal and head.literal() in ("export", "declare", "typeset", "readonly", "local"):
        _handle_export(state, words[i + 1:], make_mode, exported=head.literal() in ("export", "declare", "typeset"))
        return
    if not _may_launch(words[i], state, make_mode):
        return
    args: list[ShellArg] = []
    for word in words[i:]:
        args.extend(_resolve_word(word, state, make_mode))
    args = _strip_wrappers(args, inline, state)
    command = _parse_command(state, args, inline)
    if command is not None:
        command.span = state.index.span(words[0].start, end)
        command.cwd = state.cwd
        command.heredocs = dict(state.heredocs)
        command.sourced = state.sourced
        state.commands.append(command)
    _maybe_parse_shell_c(state, args, words, command)


def _change_directory(state: _State, words: list[Word], make_mode: bool) -> None:
    """`cd DIR` / `pushd DIR`: the working directory of the commands after it (a relative DIR joins the
    previous one; `cd "$(dirname "$0")"/..` is relative to the file's own folder); `popd`, `cd -`, `cd`
    alone or a DIR that is not literal make it unknown."""
    verb = words[0].literal()
    operands = [w for w in words[1:] if not w.literal_prefix().startswith("-")]
    own = _script_folder_target(state, operands[0], make_mode) if operands and state.knows_self else None
    if own is not None:
        state.cwd = own
        return
    args = [a for w in words[1:] for a in _resolve_word(w, state, make_mode) if not (a.value or "").startswith("-")]
    if verb == "popd" or not args:
        state.cwd = ShellArg(None, verb, state.index.span(words[0].start, words[-1].end))
        return
    target = args[0]
    previous = state.cwd
    if target.value is not None and not os.path.isabs(target.value) and previous is not None:
        value = None if previous.value is None else os.path.normpath(os.path.join(previous.value, target.value))
        target = replace(target, value=value, script_relative=previous.script_relative)
    state.cwd = target


# `$0` / `${BASH_SOURCE[0]}`, quoted or not, optionally through realpath / readlink -f (the file itself).
_SELF = r'"?\$(?:0|\{0\}|BASH_SOURCE|\{BASH_SOURCE(?:\[0\])?\})"?'
_REAL_SELF = rf'(?:{_SELF}|"?\$\((?:realpath|readlink\s+-[fe])\s+{_SELF}\s*\)"?)'
_DIRNAME_SELF = re.compile(rf'dirname\s+(?:--\s+)?{_REAL_SELF}')
# `cd "$(dirname "$0")" && pwd`, `realpath "$(dirname "$0")"`: the same folder, spelled absolute.
_ABSOLUTE_OF = re.compile(r'(?:cd\s+(?:-P\s+)?(?:--\s+)?"?(\$\(.*\)|`.*`)"?\s*(?:&?>\s*/dev/null(?:\s+2>&1)?\s*)?'
                          r'(?:&&|;)\s*pwd(?:\s+-[PL])?'
                          r'|(?:realpath|readlink\s+-[fe])\s+"?(\$\(.*\)|`.*`)"?)')
# `${0%/*}`: $0 without its last `/name` (run as `bash run.sh` from its folder, cd fails and stays there).
_STRIPPED_SELF = re.compile(r'"?\$\{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}"?')


def _names_script_folder(substitution: str) -> bool:
    """Whether a command substitution's text prints the folder of the file it runs in."""
    if substitution.startswith("$(") and substitution.endswith(")"):
        body = substitution[2:-1].strip()
    elif substitution.startswith("`") and substitution.endswith("`") and len(substitution) > 1:
        body = substitution[1:-1].strip()
    else:
        return False
    if _DIRNAME_SELF.fullmatch(body):
        return True
    nested = _ABSOLUTE_OF.fullmatch(body)
    return nested is not None and _names_script_folder(nested.group(1) or nested.group(2))


def _script_folder_target(state: _State, word: Word, make_mode: bool) -> Optional[ShellArg]:
    """The `cd` target as a folder relative to the launch file's own folder, or None when the word
    does not start from that folder (or what follows it is not literal)."""
    raw = state.text[word.start:word.end]
    span = state.index.span(word.start, word.end)
    stripped = _STRIPPED_SELF.match(raw)
    if stripped is not None and not make_mode:
        rest = raw[stripped.end():].replace('"', "").replace("'", "")
        if not re.fullmatch(r"(/[\w.+-]*)*", rest):
            return ShellArg(None, raw, span, script_relative=True)
    else:
        text = _resolve_text(word, state, make_mode)
        if not text.startswith(SCRIPT_FOLDER):
            return None
        rest = text[len(SCRIPT_FOLDER):]
        if UNKNOWN in rest:
            return ShellArg(None, raw, span, script_relative=True)
    return ShellArg(os.path.normpath("." + rest), raw, span, script_relative=True)


_COMMAND_WORDS = COMMAND_WORDS | frozenset({"env", "bash", "sh", "zsh", "time"}) | _PASS_THROUGH


def _may_launch(word: Word, state: _State, make_mode: bool) -> bool:
    """Cheap test on the command word (its first field), before expanding the rest of the command."""
    value = _resolve_text(word, state, make_mode)
    if any(p.kind in (VAR, PARAM, MAKEVAR) and not p.quoted for p in word.parts):
        fields = value.split()
        value = fields[0] if fields else ""
    if not value or UNKNOWN in value:
        return False
    name = os.path.basename(value)
    return name in _COMMAND_WORDS or _PYTHON_WORD.fullmatch(name) is not None


def _strip_reserved_words(state: _State, words: list[Word]) -> list[Word]:
    """Drop `if`, `then`, `do`, `!` ... in front of a command, tracking the blocks they open."""
    while words and words[0].is_literal and words[0].literal() in _RESERVED_PREFIX:
        word = words[0].literal()
        if word in _BLOCK_OPENERS:
            state.open_block()
        elif word in _BLOCK_CLOSERS:
            state.close_block()
        words = words[1:]
    return words


def _take_assignments(state: _State, words: list[Word], i: int, into: dict[str, EnvValue],
                      resolved_into: dict[str, str], make_mode: bool) -> int:
    while i < len(words):
        word = words[i]
        match = _ASSIGNMENT.match(word.literal_prefix())
        if not match:
            break
        env_value, resolved = _env_value_of(state, word, match, "inline", make_mode)
        into[match.group(1)] = env_value
        resolved_into[match.group(1)] = resolved
        i += 1
    return i


def _env_value_of(state: _State, word: Word, match: re.Match, source: str, make_mode: bool
                  ) -> tuple[EnvValue, str]:
    """The assignment as an EnvValue, and its value with UNKNOWN marking what is not literal
    (kept so that `$ARGS` built from known and unknown pieces still splits into words)."""
    name, op = match.group(1), match.group(2)
    if len(word.parts) == 2 and word.parts[1].kind == CMD and word.parts[1].text.startswith("(") \
            and (word.parts[1].elements or not word.parts[1].text[1:-1].strip()):
        return _array_assignment(state, word, name, op, make_mode)
    full = _resolve_text(word, state, make_mode)
    defaulted = state.used_default or (op == "+=" and name in state.defaulted)
    value = full[match.end():]
    if op == "+=":
        value = state.shell_vars.get(name, "") + value
    span = state.index.span(word.start, word.end)
    in_launch_dir = _in_launch_dir(state, word, match, make_mode, value) if UNKNOWN in value and op == "=" else None
    return EnvValue(name, _known(value), source, span, defaulted, in_launch_dir), value


def _array_assignment(state: _State, word: Word, name: str, op: str, make_mode: bool) -> tuple[EnvValue, str]:
    """`A=(--nnodes 2 "$X")`, `A+=(...)`: `${A[@]}` is the element words (kept as `A[@]`, joined by
    blanks: an element with a blank inside is a word dslint cannot read), `$A` the first one."""
    values = []
    for element in word.parts[1].elements:
        for arg in _resolve_word(element, state, make_mode):
            values.append(UNKNOWN if arg.value is None or any(ch.isspace() for ch in arg.value) else arg.value)
    first = values[0] if values else ""
    if op == "+=" and state.shell_vars.get(name):
        first = state.shell_vars[name]
        values = [state.shell_vars.get(f"{name}[@]", first), *values]
    state.set_shell_var(f"{name}[@]", " ".join(values))
    span = state.index.span(word.start, word.end)
    return EnvValue(name, _known(first), "assign", span), first


def _in_launch_dir(state: _State, word: Word, match: re.Match, make_mode: bool, value: str) -> Optional[str]:
    """The assigned text with `$PWD`, `${PWD}`, `$(pwd)` as `.` and other unknown parts as `$` (see
    EnvValue.in_launch_dir); None where it names no such folder, or after a `cd` (then `.` would be
    read against the wrong folder)."""
    raw = state.text[word.start:word.end]
    if "PWD" not in raw and "pwd" not in raw or state.cwd is not None or make_mode:
        return None
    used_default = state.used_default
    state.pwd_as_dot = True
    try:
        text = _resolve_text(word, state, make_mode)[match.end():]
    finally:
        state.pwd_as_dot = False
        state.used_default = used_default
    return text.replace(SCRIPT_FOLDER, "$").replace(UNKNOWN, "$") if text != value else None


def _handle_export(state: _State, words: list[Word], make_mode: bool, exported: bool) -> None:
    for word in words:
        prefix = word.literal_prefix()
        if prefix.startswith("-"):
            continue  # export -n, declare -x ...
        match = _ASSIGNMENT.match(prefix)
        if match:
            env_value, value = _env_value_of(state, word, match, "export" if exported else "assign", make_mode)
            state.set_shell_var(env_value.name, value, env_value.from_default)
            state.env[env_value.name] = env_value
        elif exported and word.is_literal and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
            known = state.env.get(prefix)
            value = known.value if known else None
            state.env[prefix] = EnvValue(prefix, value, "export", state.index.span(word.start, word.end))


def _strip_wrappers(args: list[ShellArg], inline: dict[str, EnvValue], state: _State) -> list[ShellArg]:
    """`env A=1 cmd`, `nohup cmd`, `exec cmd`, `time cmd`: the command is what follows."""
    while args:
        head = args[0].value
        if head in _PASS_THROUGH or head == "time":
            args = args[1:]
            continue
        if head is not None and os.path.basename(head) == "env":
            args = args[1:]
            while args and args[0].value is not None:
                match = _ASSIGNMENT.match(args[0].value)
                if match:
                    value = args[0].value[match.end():]
                    inline[match.group(1)] = EnvValue(match.group(1), value, "inline", args[0].span)
                elif args[0].value in ("-u", "--unset"):
                    args = args[1:]
                elif not args[0].value.startswith("-"):
                    break
                args = args[1:]
            continue
        break
    return args


class _SpanOf:
    """A LineIndex stand-in for text that is not the file's (a double-quoted `bash -c` script after
    expansion): every position is the span of the word that holds it."""

    def __init__(self, span):
        self._span = span

    def span(self, start: int, end: int):
        return self._span


def _maybe_parse_shell_c(state: _State, args: list[ShellArg], words: list[Word],
                         outer: Optional[LaunchCommand] = None) -> None:
    """`bash -c '...'` (also after srun): bash runs its argument as a command line. A single-quoted
    script is parsed where it stands (exact positions); a double-quoted one is expanded first (the
    batch shell expands it before bash runs it) and its positions are the whole word's. The
    commands it starts run under the launchers before `bash` (`srun bash -c "torchrun ..."`:
    one torchrun per srun task)."""
    for k in range(len(args) - 1):
        head = args[k].value
        if head is None or os.path.basename(head) not in ("bash", "sh", "zsh") or args[k + 1].value != "-c":
            continue
        if k + 2 >= len(args):
            return
        target = args[k + 2]
        raw = target.raw
        first = len(state.commands)
        if len(raw) >= 2 and raw[0] == "'" and raw[-1] == "'" and "'" not in raw[1:-1]:
            outer_positional, state.positional = state.positional, None  # its `$1` is bash -c's own argument
            _walk_script(state, parse_shell(state.text, target.span.start_offset + 1, target.span.end_offset - 1))
            state.positional = outer_positional
            inner = state.commands[first:]
        elif len(raw) >= 2 and raw[0] == '"' and raw[-1] == '"':
            word = next((w for w in words if w.start == target.span.start_offset and w.end == target.span.end_offset),
                        None)
            if word is None:
                return
            script = _resolve_text(word, state, make_mode=False)
            sub = _State(_SpanOf(target.span), script, shell_vars=dict(state.shell_vars), env=dict(state.env),
                         sbatch=state.sbatch, heredocs=dict(state.heredocs))
            _walk_script(sub, parse_shell(script))
            inner = sub.commands
            for command in inner:
                command.span = outer.span if outer is not None else target.span
            state.commands.extend(inner)
        else:
            return
        if outer is not None and outer.launchers and outer.script != head:
            # (`srun tool bash -c "python train.py"`: a program dslint cannot read runs it in each task)
            del state.commands[len(state.commands) - len(inner):]
            return
        wrapping = [lc for lc in outer.launchers] if outer is not None and outer.script == head else []
        if wrapping:
            for command in inner:
                command.launchers = wrapping + command.launchers
                derive_facts(command, state.sbatch)
        return


# -- launcher chains -----------------------------------------------------------------------

def _program_name(arg: ShellArg) -> Optional[str]:
    return os.path.basename(arg.value) if arg.value else None


def _launcher_kind_at(args: list[ShellArg], i: int) -> Optional[str]:
    """The kind of launcher that args[i] starts, or None."""
    name = _program_name(args[i])
    if name is None:
        return None
    kind = launcher_kind(name, [a.value for a in args[i + 1:i + 3]])
    if kind is not None:
        return kind
    if _PYTHON_WORD.fullmatch(name):
        return "python"
    return None


def _is_program(arg: ShellArg) -> bool:
    value = arg.value or ""
    name = os.path.basename(value)
    return bool(name) and (_launcher_kind_at([arg], 0) is not None or name.endswith(".py") or name in ("bash", "sh"))


def _parse_command(state: _State, args: list[ShellArg], inline: dict[str, EnvValue]) -> Optional[LaunchCommand]:
    if not args or _launcher_kind_at(args, 0) is None:
        return None
    command = LaunchCommand(span=args[0].span)
    i = 0
    while i < len(args):
        kind = _launcher_kind_at(args, i)
        if kind is None and command.launchers:
            after = _after_wrapper(args, i)  # `srun shifter --image=x python train.py`: srun's tasks run python
            if after is not None:
                i = after
                continue
        if kind is None:
            _set_script(command, args, i, module=False)
            break
        parser = _LAUNCHER_PARSERS[kind]
        i, done = parser(command, args, i)
        if done:
            break
    if not command.launchers or (command.launchers[-1].kind == "python" and len(command.launchers) == 1
                                 and command.script is None and command.module is None):
        return None
    command.env = {**state.env, **inline}
    derive_facts(command, state.sbatch)
    return command


# Programs that run the command after their options (and an image) in the same task: containers, CPU
# and NUMA binding. Per program: (the words before its options, options that take the next word).
_WRAPPERS = {
    "shifter": ((), ("--image", "--volume", "-V", "--module", "-m", "--env", "-e", "--workdir", "-w", "--env-file")),
    "singularity": (("exec",), ("--bind", "-B", "--env", "--env-file", "--home", "-H", "--overlay", "-o", "--pwd",
                                "--workdir", "-W", "--app", "--security", "--network", "--mount")),
    "apptainer": (("exec",), ("--bind", "-B", "--env", "--env-file", "--home", "-H", "--overlay", "-o", "--pwd",
                              "--workdir", "-W", "--app", "--security", "--network", "--mount")),
    "enroot": (("start",), ("--mount", "-m", "--env", "-e", "--conf", "-c")),
    "numactl": ((), ("-N", "-m", "-C", "-p", "-i", "--cpunodebind", "--membind", "--physcpubind", "--preferred",
                     "--interleave")),
    "taskset": ((), ()),
}
_IMAGE_FIRST = ("singularity", "apptainer", "enroot")  # `singularity exec [OPTIONS] IMAGE command`


def _after_wrapper(args: list[ShellArg], i: int) -> Optional[int]:
    """The index of the command a container or binding wrapper at args[i] runs, None when args[i] is
    none (or its words cannot be read)."""
    name = _program_name(args[i])
    if name not in _WRAPPERS:
        return None
    verbs, valued = _WRAPPERS[name]
    j = i + 1
    for verb in verbs:
        if j >= len(args) or args[j].value != verb:
            return None
        j += 1
    while j < len(args) and (args[j].value or "").startswith("-"):
        word = args[j].value or ""
        j += 2 if word in valued else 1
    if name in _IMAGE_FIRST or name == "taskset":  # (taskset: `-c 0-7 cmd`, `0x3 cmd`: the list or mask)
        j += 1
    return j if j < len(args) and args[j].value is not None else None


def _set_script(command: LaunchCommand, args: list[ShellArg], i: int, module: bool) -> None:
    if i >= len(args):
        return
    target = args[i]
    if module:
        command.module = target.value
    else:
        command.script = target.value
    command.script_span = target.span
    command.script_args = list(args[i + 1:])


def _add_launcher(command: LaunchCommand, kind: str, args: list[ShellArg], first: int, last: int,
                  options: list[LaunchOption]) -> Launcher:
    word = " ".join(a.value or a.raw for a in args[first:last + 1])
    launcher = Launcher(kind, word, join_spans(args[first].span, args[last].span))
    for option in options:
        launcher.option_list.append(option)
        launcher.options[option.key] = option
    command.launchers.append(launcher)
    return launcher


def _python_target(command: LaunchCommand, args: list[ShellArg], i: int, launcher: Launcher) -> tuple[int, bool]:
    """After a torchrun-like launcher: a module, a non-python program, or a script."""
    if "module" in launcher.options:
        _set_script(command, args, i, module=True)
        return len(args), True
    if "no_python" in launcher.options:
        return i, i >= len(args)  # the program may be another launcher or python
    _set_script(command, args, i, module=False)
    return len(args), True


def _parse_torchrun(command: LaunchCommand, args: list[ShellArg], i: int) -> tuple[int, bool]:
    wrapper = wraps_torchrun(args[i].value)
    last = i + 1 if wrapper else i
    options, j = parse_argparse(args, last + 1, flags.TORCHRUN, allow_abbrev=True, is_program=_is_program)
    if wrapper:
        return _recipe_target(command, args, i, last, j, options)
    launcher = _add_launcher(command, "torchrun", args, i, i, options)
    return _python_target(command, args, j, launcher)


def _recipe_target(command: LaunchCommand, args: list[ShellArg], first: int, last: int, j: int,
                   options: list[LaunchOption]) -> tuple[int, bool]:
    """`tune run [TORCHRUN-OPTIONS] <recipe> ...`: torchrun when an option is given, else the recipe
    in the tool's own process; a recipe written as a path is that file (run as its dotted module
    from the current folder), a bare name one of the tool's own recipes (read as a module name)."""
    _add_launcher(command, "torchrun" if options else "python", args, first, last, options)
    if j < len(args):
        _set_script(command, args, j, module=not (args[j].value or "").endswith(".py"))
    return len(args), True


def _parse_deepspeed(command: LaunchCommand, args: list[ShellArg], i: int) -> tuple[int, bool]:
    options, j = parse_argparse(args, i + 1, flags.DEEPSPEED, allow_abbrev=True, is_program=_is_program)
    launcher = _add_launcher(command, "deepspeed", args, i, i, options)
    return _python_target(command, args, j, launcher)


def _accelerate_option_name(name: str) -> str:
    # accelerate/commands/launch.py clean_option: `-` after the leading `--` reads as `_`.
    return "--" + name[2:].replace("-", "_")


def _parse_accelerate(command: LaunchCommand, args: list[ShellArg], i: int, words: int = 0) -> tuple[int, bool]:
    last = i if _program_name(args[i]) == "accelerate-launch" else i + 1
    if words:
        last = i + words - 1
    options, j = parse_argparse(args, last + 1, flags.ACCELERATE_ANY_VERSION, allow_abbrev=False,
                                normalise=_accelerate_option_name)
    launcher = _add_launcher(command, "accelerate", args, i, last, options)
    return _python_target(command, args, j, launcher)


def _parse_lightning(command: LaunchCommand, args: list[ShellArg], i: int, words: int = 0) -> tuple[int, bool]:
    if not words:
        words = 2 if _program_name(args[i]) == "fabric" else 3
    last = i + words - 1
    options, j = parse_argparse(args, last + 1, flags.FABRIC, allow_abbrev=False)
    _add_launcher(command, "lightning", args, i, last, options)
    _set_script(command, args, j, module=False)
    return len(args), True


def _parse_srun(command: LaunchCommand, args: list[ShellArg], i: int) -> tuple[int, bool]:
    options, j = parse_getopt(args, i + 1, flags.SRUN_LONG, flags.SRUN_SHORT, is_program=_is_program)
    _add_launcher(command, "srun", args, i, i, _canonical_slurm(options))
    return j, j >= len(args)


def _canonical_slurm(options: list[LaunchOption]) -> list[LaunchOption]:
    """Short Slurm options under their long names (-N -> nodes), as #SBATCH directives are."""
    short_keys = {"N": "nodes", "n": "ntasks", "c": "cpus-per-task", "G": "gpus", "J": "job-name",
                  "tasks-per-node": "ntasks-per-node"}
    return [replace(o, key=short_keys.get(o.key, o.key)) for o in options]


def _parse_mpirun(command: LaunchCommand, args: list[ShellArg], i: int) -> tuple[int, bool]:
    options, j = parse_mpirun(args, i + 1, flags.MPIRUN, flags.MPIRUN_CANONICAL, _is_program)
    _add_launcher(command, "mpirun", args, i, i, options)
    return j, j >= len(args)


def _parse_python(command: LaunchCommand, args: list[ShellArg], i: int) -> tuple[int, bool]:
    """CPython's own options, then `-m module` (a launcher module or the target) or the script."""
    j = i + 1
    options: list[LaunchOption] = []
    while j < len(args):
        unread = unread_words(args, j, _is_program)
        if unread is not None:  # `python $PYFLAGS train.py`: CPython's own options
            j = unread[1]
            continue
        text = args[j].value or args[j].raw
        if text == "-m" or (text.startswith("-m") and len(text) > 2 and not text.startswith("--")):
            module_arg = args[j + 1] if text == "-m" and j + 1 < len(args) else None
            module = module_arg.value if module_arg else text[2:]
            last = j + 1 if module_arg else j
            launcher_kind = _PYTHON_MODULE_LAUNCHERS.get(module or "")
            if launcher_kind:
                return _parse_python_module_launcher(command, args, i, last, launcher_kind)
            _add_launcher(command, "python", args, i, i, options)
            if module_arg:
                _set_script(command, args, j + 1, module=True)
            else:
                command.module = module
                command.script_span = args[j].span
                command.script_args = list(args[j + 1:])
            return len(args), True
        if text == "-c" or not text.startswith("-") or text == "-":
            break
        takes_value = text[1:2] in flags.PYTHON_VALUE_OPTIONS and len(text) == 2 or text in flags.PYTHON_LONG_VALUE_OPTIONS
        value_arg = args[j + 1] if takes_value and j + 1 < len(args) else None
        span = join_spans(args[j].span, value_arg.span) if value_arg else args[j].span
        options.append(LaunchOption(text, text.lstrip("-"), value_arg.value if value_arg else None,
                                    value_arg.raw if value_arg else None, value_arg is None, span, args[j].span,
                                    value_arg.span if value_arg else None))
        j += 2 if value_arg else 1
    _add_launcher(command, "python", args, i, i, options)
    if j < len(args) and (args[j].value or args[j].raw) != "-c":
        _set_script(command, args, j, module=False)
    return len(args), True


def _parse_python_module_launcher(command: LaunchCommand, args: list[ShellArg], first: int, last: int,
                                  kind: str) -> tuple[int, bool]:
    """`python -m torch.distributed.run ...`: the launcher's word spans python to the module."""
    if kind == "accelerate":
        return _parse_accelerate(command, args, first, words=last - first + 1)
    if kind == "lightning":
        # `python -m lightning.fabric.cli run ...`: the click group's `run` command follows.
        has_run = last + 1 < len(args) and args[last + 1].value == "run"
        return _parse_lightning(command, args, first, words=last - first + 1 + int(has_run))
    spec = LAUNCHERS[kind]
    options, j = parse_argparse(args, last + 1, spec.options, allow_abbrev=spec.allow_abbrev,
                                is_program=_is_program if kind in _READS_UNREAD_OPTIONS else None)
    launcher = _add_launcher(command, kind, args, first, last, options)
    return _python_target(command, args, j, launcher)


# Launchers whose facts treat words dslint cannot read among their options as options that may
# set any of them (launch/facts.py); accelerate and lightning read their config from such options.
_READS_UNREAD_OPTIONS = frozenset({"torchrun", "torch.distributed.launch", "deepspeed", "srun", "mpirun"})

_LAUNCHER_PARSERS = {
    "torchrun": _parse_torchrun,
    "deepspeed": _parse_deepspeed,
    "accelerate": _parse_accelerate,
    "lightning": _parse_lightning,
    "srun": _parse_srun,
    "mpirun": _parse_mpirun,
    "python": _parse_python,
}

