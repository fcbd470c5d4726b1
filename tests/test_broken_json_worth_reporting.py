"""A JSON file that does not parse is a finding only when it is meant as a DeepSpeed config."""
from __future__ import annotations


def _codes(project, files):
    project.write(files)
    return [(f.path, f.code) for f in project.check().findings]


def test_a_broken_config_with_deepspeed_keys_is_reported(project):
    assert _codes(project, {"conf/train.json": '{"train_batch_size": 8,\n "steps_per_print": 10,,\n}\n'}) == \
        [("conf/train.json", "DSL001")]


def test_json_lines_data_that_quote_deepspeed_words_are_not(project):
    rows = ('{"question": "a larger batch?", "answer": "pass --gradient_accumulation_steps 4"}\n'
            '{"question": "what is zero_optimization?", "answer": "it shards optimizer state"}\n')
    assert _codes(project, {"data/qa_eval.json": rows}) == []


def test_a_broken_file_naming_a_deepspeed_word_only_in_a_string_is_not(project):
    assert _codes(project, {"data/notes.json": '{"cmd": "deepspeed --train_batch_size 8",,}\n'}) == []
