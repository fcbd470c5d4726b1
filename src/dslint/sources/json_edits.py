"""Byte-range edits of a DeepSpeed JSON config, in the file's own layout: replace a value, delete a
pair with one of its commas, add a pair as an object's last. Each is (start, end, new text, old text)."""
from __future__ import annotations

import json
from typing import Optional

from .dsconfig import JsonDoc, JsonNode


def replace_value_edit(doc: JsonDoc, node: JsonNode, text: str) -> tuple:
    span = node.span
    return (span.start_offset, span.end_offset, text, doc.text[span.start_offset:span.end_offset])


def delete_pair_edit(doc: JsonDoc, obj: JsonNode, key: str) -> Optional[tuple]:
    """An edit deleting `"key": value` from an object with one of the commas around it, so that
    the next pair takes its place (or the object becomes `{}`)."""
    pairs = list(obj.children.items())
    index = next((i for i, (k, _) in enumerate(pairs) if k == key), None)
    if obj.kind != "object" or index is None or pairs[index][1].pair_span is None:
        return None
    span = pairs[index][1].pair_span
    if index + 1 < len(pairs) and pairs[index + 1][1].pair_span is not None:
        start, end = span.start_offset, pairs[index + 1][1].pair_span.start_offset
    elif index > 0 and pairs[index - 1][1].pair_span is not None:
        start, end = pairs[index - 1][1].pair_span.end_offset, span.end_offset
    else:
        start, end = obj.span.start_offset + 1, obj.span.end_offset - 1
    return (start, end, "", doc.text[start:end])


def insert_pair_edit(doc: JsonDoc, obj: JsonNode, key: str, value_text: str) -> Optional[tuple]:
    """An edit adding `"key": value` as the last pair of an object, in the object's own layout."""
    if obj.kind != "object":
        return None
    text = doc.text
    pair = f"{json.dumps(key)}: {value_text}"
    if not obj.children:
        start = obj.span.start_offset + 1
        return (start, start, pair, "")
    last = list(obj.children.values())[-1]
    end = (last.pair_span or last.span).end_offset
    last_start = (last.pair_span or last.span).start_offset
    line_start = text.rfind("\n", 0, last_start) + 1
    before = text[line_start:last_start]
    if before.strip() == "" and obj.span.start.row != (last.pair_span or last.span).start.row:
        return (end, end, f",\n{before}{pair}", "")
    return (end, end, f", {pair}", "")
