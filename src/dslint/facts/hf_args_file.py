"""The DeepSpeed config named inside a TrainingArguments args file (project phase).

`HfArgumentParser(TrainingArguments).parse_json_file(sys.argv[1])` (script_setup.hf_args_file) fills
TrainingArguments from the JSON/YAML file whose path is that word of the script's argv, so the file's
`"deepspeed"` entry is the config the Trainer gives DeepSpeed. The argv is the launch line's script words
after what the launcher itself puts first: the deepspeed launcher passes `--local_rank=N` before them
(deepspeed/launcher/launch.py, unless `--no_local_rank`), torch.distributed.launch `--local-rank=N`
(unless `--use-env`). Every word must be literal; a path relative to the job's working directory.
"""
from __future__ import annotations

import json
from typing import Any, Optional

# launcher kind -> (the option that stops it, the word it puts before the script's own)
_PREPENDED = {"deepspeed": ("no_local_rank", "--local_rank=0"), "torch.distributed.launch": ("use_env", "--local-rank=0")}
_SUFFIXES = {"json": (".json",), "yaml": (".yaml", ".yml")}


def args_file_config(project: Any, setup: Any, bases: list) -> Optional[tuple]:
    """(the config path as the args file writes it, how it was found, the span of the parse call), else None."""
    found = setup.facts.hf_args_file
    command = setup.command
    if found is None or command is None or not command.launchers:
        return None
    index, kind, span, guarded = found
    innermost = command.launchers[-1]
    if innermost.may_have_more_options:
        return None
    if isinstance(index, tuple):  # an option's value, or its default when the launch line passes none
        from .link import option_value

        options, default = index
        given = option_value(command.script_args, options)
        if given is None and any(a.value is None for a in command.script_args):
            return None
        word = given[0] if given is not None else default
        return _deepspeed_entry(project, word, kind, bases, span) if isinstance(word, str) else None
    words = [a.value for a in command.script_args]
    if None in words:
        return None  # `"$@"` and the like: which word lands at that index is not known
    stop, prepended = _PREPENDED.get(innermost.kind, (None, None))
    argv = ([prepended] if prepended is not None and stop not in innermost.options else []) + words
    if guarded and len(argv) != 1:
        return None  # HF's `if len(sys.argv) == 2 and sys.argv[1].endswith(".json")` is then not taken
    position = index - 1 if index > 0 else index
    if not -len(argv) <= position < len(argv):
        return None
    return _deepspeed_entry(project, argv[position], kind, bases, span)


def _deepspeed_entry(project: Any, word: str, kind: str, bases: list, span: Any) -> Optional[tuple]:
    if not word.endswith(_SUFFIXES[kind]):
        return None
    content = _read(project, word, kind, bases)
    value = content.get("deepspeed") if isinstance(content, dict) else None
    if not isinstance(value, str) or not value:
        return None
    return value, f"\"deepspeed\" in {word}, the TrainingArguments file the launch line names", span


def _read(project: Any, written: str, kind: str, bases: list) -> Any:
    from ..sources import yaml_configs
    from .link import resolve_path

    for base, _ in bases:
        project.note_input(str(base / written))
    real = resolve_path(project, {}, written, bases).real
    if real is None:
        return None
    if kind == "yaml":
        doc = yaml_configs.read_yaml(str(real), str(real))
        return doc.value if doc is not None and doc.error is None else None
    from ..sources.files import read_regular

    try:
        return json.loads(read_regular(str(real)).decode("utf-8", errors="replace"))  # (never a FIFO)
    except (OSError, ValueError, RecursionError):
        return None
