"""Positions in DeepSpeed JSON configs: exact for non-ASCII text, and large non-config JSON files
(tokenizers, datasets) are recognised and skipped before any position work."""
from __future__ import annotations

import json
import random

from dslint.sources.dsconfig import _byte_to_char_mapper, parse_json


def test_byte_offsets_map_to_character_offsets_across_multibyte_characters():
    rng = random.Random(7)
    text = "".join(rng.choice(["a", "é", "€", "😀", "\n", " "]) for _ in range(3000))
    to_char = _byte_to_char_mapper(text)
    byte = 0
    for index, char in enumerate(text):
        assert to_char(byte) == index
        byte += len(char.encode("utf-8"))
    assert to_char(byte) == len(text)


def test_keys_after_non_ascii_text_point_at_the_right_column():
    text = '{\n  "_comment": "entraînement 😀 réparti",\n  "gradient_acumulation_steps": 4\n}\n'
    doc = parse_json("ds_config.json", text)
    span = doc.node(("gradient_acumulation_steps",)).key_span
    assert (span.start.row, span.start.column) == (3, 3)
    assert text[span.start_offset:span.end_offset] == '"gradient_acumulation_steps"'


def test_a_large_non_config_json_is_rejected_before_positions_are_built(project):
    vocab = {f"tok{i}é": i for i in range(20000)}
    project.write({"tokenizer.json": json.dumps({"model": {"vocab": vocab}}, ensure_ascii=False),
                   "train.py": "import torch\n"})
    assert parse_json("tokenizer.json", project.read("tokenizer.json"), keep=lambda path, value: False) is None
    result = project.check()
    assert result.files == 1 and result.findings == []
