"""DeepSpeed JSON configs: values plus the exact position of every key and value.

tree-sitter's JSON grammar gives byte ranges for every node and tolerates comments, so a
finding can point at the key and a fix can replace only the bytes of a key or a value.
DeepSpeed reads config *paths* with hjson (comments and trailing commas accepted), so such a
file is read and linted, but never rewritten.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePath
from typing import Any, Optional, Union

from ..model import Span
from ..textpos import LineIndex

# Keys that only a DeepSpeed config has; two of them (or one plus a DeepSpeed-ish file name)
# make a JSON file a DeepSpeed config. `optimizer`/`fp16` alone are too common elsewhere.
DEEPSPEED_MARKER_KEYS = frozenset({
    "train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
    "zero_optimization", "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer",
    "gradient_clipping", "steps_per_print", "wall_clock_breakdown", "fp16", "bf16", "bfloat16",
    "activation_checkpointing", "optimizer", "scheduler", "prescale_gradients", "flops_profiler",
    "communication_data_type", "aio", "tensorboard", "data_types", "amp", "comms_logger",
})
_STRONG_MARKERS = frozenset({
    "train_batch_size", "train_micro_batch_size_per_gpu", "zero_optimization",
    "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer", "steps_per_print",
    "wall_clock_breakdown", "gradient_accumulation_steps",
})

PathKey = Union[str, int]


@dataclass
class JsonNode:
    """A value in the document, with where it is written."""

    value: Any
    span: Span  # the value itself
    key_span: Optional[Span] = None  # the key of the pair holding it, quotes included
    pair_span: Optional[Span] = None  # `"key": value`
    children: dict = field(default_factory=dict)  # key (str) or index (int) -> JsonNode
    kind: str = "value"  # object | array | string | number | true | false | null | value


@dataclass
class JsonDoc:
    path: str
    text: str
    lines: LineIndex
    root: Optional[JsonNode]
    value: Any
    strict: bool  # valid strict JSON (json.loads): only then is the file rewritten by fixes
    # Why json.loads rejects it (message, row, column) when it is not strict: what the HF Trainer,
    # Accelerate and Lightning (json.load readers) will say.
    strict_error: Optional[tuple[str, int, int]] = None
    duplicate_keys: list[tuple[tuple, Span]] = field(default_factory=list)
    # DeepSpeed's marker keys but evidence of another kind of file: a config only where linked as one
    doubtful: bool = False

    def node(self, path: tuple[PathKey, ...]) -> Optional[JsonNode]:
        node = self.root
        for key in path:
            if node is None:
                return None
            node = node.children.get(key)
        return node

    def walk(self):
        """Yield (path, node) for every node, depth first."""
        stack: list[tuple[tuple, JsonNode]] = [((), self.root)] if self.root else []
        while stack:
            path, node = stack.pop()
            yield path, node
            for key, child in reversed(list(node.children.items())):
                stack.append((path + (key,), child))


class JsonError(Exception):
    def __init__(self, message: str, row: int, column: int):
        super().__init__(message)
        self.row, self.column = row, column


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_json

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_json.language()))


def _lenient_int(digits: str) -> Union[int, float]:
    """An integer literal; past Python's int-from-string limit (4,300 digits) the float it is
    (inf beyond float range), so a huge number is a value, not a crash."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def _loads(text: str) -> Any:
    """json.loads, except that an integer too long for `int()` becomes a float."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return json.loads(text, parse_int=_lenient_int)


def _decode_lenient(text: str) -> Any:
    import hjson

    try:
        return hjson.loads(text)
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        return hjson.loads(text, parse_int=_lenient_int)


def parse_json(path: str, text: str, *, keep=None) -> Optional[JsonDoc]:
    """Parse a JSON (or hjson-tolerant) document; raise JsonError with a position when invalid.

    With `keep(path, value)` given, a document it rejects returns None before positions are
    built (the costly part: a 2 MB tokenizer.json is not a DeepSpeed config).
    """
    strict_error = None
    try:
        value = _loads(text)
    except json.JSONDecodeError as error:
        strict_error = (error.msg, error.lineno, error.colno)
        try:
            value = _decode_lenient(text)
        except Exception:  # hjson raises its own HjsonDecodeError and others
            raise JsonError(f"invalid JSON: {strict_error[0]}", strict_error[1], strict_error[2]) from None
    except RecursionError:
        raise JsonError("invalid JSON: nested too deeply", 1, 1) from None
    if keep is not None and not keep(path, value):
        return None
    lines = LineIndex(text)
    doc = JsonDoc(path=path, text=text, lines=lines, root=None, value=value, strict=strict_error is None,
                  strict_error=strict_error)
    data = text.encode("utf-8")
    to_char = (lambda b: b) if len(data) == len(text) else _byte_to_char_mapper(text)
    tree = _parser().parse(data)
    top = next((c for c in tree.root_node.named_children if c.type != "comment"), None)
    if top is not None:
        doc.root = _build(top, to_char, lines, doc, ())
    return doc


def _byte_to_char_mapper(text: str):
    """Byte offset -> character offset in O(log n): only non-ASCII characters shift the two."""
    import bisect
    import re

    byte_starts: list[int] = []  # byte offset just after each non-ASCII character
    extra: list[int] = []  # bytes beyond one per character, up to and including that character
    shift = 0
    for match in re.finditer(r"[^\x00-\x7f]", text):
        width = len(match.group().encode("utf-8", "surrogatepass"))
        shift += width - 1
        byte_starts.append(match.start() + shift + 1)
        extra.append(shift)

    def to_char(b: int) -> int:
        index = bisect.bisect_right(byte_starts, b) - 1
        return b - (extra[index] if index >= 0 else 0)

    return to_char


def _build(ts_node, to_char, lines: LineIndex, doc: JsonDoc, path: tuple) -> JsonNode:
    span = lines.span(to_char(ts_node.start_byte), to_char(ts_node.end_byte))
    kind = ts_node.type
    node = JsonNode(value=None, span=span, kind=kind)
    if kind == "object":
        obj = {}
        for pair in ts_node.named_children:
            if pair.type != "pair":
                continue
            key_node = pair.child_by_field_name("key")
            value_node = pair.child_by_field_name("value")
            if key_node is None or value_node is None:
                continue
            key = _string_value(key_node, doc.text, to_char)
            child = _build(value_node, to_char, lines, doc, path + (key,))
            child.key_span = lines.span(to_char(key_node.start_byte), to_char(key_node.end_byte))
            child.pair_span = lines.span(to_char(pair.start_byte), to_char(pair.end_byte))
            if key in node.children:
                doc.duplicate_keys.append((path + (key,), child.key_span))
            node.children[key] = child
            obj[key] = child.value
        node.value = obj
    elif kind == "array":
        items = []
        for index, item in enumerate(c for c in ts_node.named_children if c.type != "comment"):
            child = _build(item, to_char, lines, doc, path + (index,))
            node.children[index] = child
            items.append(child.value)
        node.value = items
    else:
        raw = doc.text[span.start_offset:span.end_offset]
        try:
            node.value = _loads(raw)
        except ValueError:
            node.value = raw
    return node


def _string_value(ts_node, text: str, to_char) -> str:
    raw = text[to_char(ts_node.start_byte):to_char(ts_node.end_byte)]
    try:
        value = json.loads(raw)
        return value if isinstance(value, str) else raw
    except ValueError:
        return raw.strip("\"'")


def looks_like_deepspeed_config(path: str, value: Any) -> bool:
    """Is this parsed JSON a DeepSpeed config? (Other JSON files are not dslint's business.)"""
    return deepspeed_config_kind(path, value) == "config"


def deepspeed_config_kind(path: str, value: Any) -> Optional[str]:
    """"config" for a DeepSpeed config by its keys; "doubtful" for one with DeepSpeed's marker keys
    and evidence of another kind of file (not_deepspeed.py: a DeepSpeed config only where a setup
    links it as one); None for any other JSON."""
    if not isinstance(value, dict):
        return None
    keys = set(value)
    if sum(1 for key in keys if isinstance(key, str) and "-" in key) >= 2:
        # DeepSpeed's keys never contain '-': this is another tool's config that embeds DeepSpeed
        # settings among its own (GPT-NeoX's "pipe-parallel-size", ...) and translates them.
        return None
    strong = len(keys & _STRONG_MARKERS)
    markers = len(keys & DEEPSPEED_MARKER_KEYS)
    name = PurePath(path).name.lower()
    ds_name = any(word in name for word in ("ds_", "deepspeed", "zero", "ds-", "dsconfig"))
    if not (strong >= 2 or (strong >= 1 and markers >= 2) or (ds_name and markers >= 1)):
        return None
    from .not_deepspeed import is_doubtful

    return "doubtful" if is_doubtful(value, DEEPSPEED_MARKER_KEYS) else "config"
