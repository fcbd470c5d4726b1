"""DSL602: a block DeepSpeed removed is deleted by the fix; safely only when it says it is off."""
from __future__ import annotations

import json

DISABLED = '{\n  "train_batch_size": 8,\n  "curriculum_learning": {"enabled": false}\n}\n'
ENABLED = '{\n  "curriculum_learning": {"enabled": true, "curriculum_type": "seqlen"},\n  "train_batch_size": 8\n}\n'


def _fix(project, unsafe: bool) -> str:
    project.fix(unsafe=unsafe, select=["DSL602"], **{"deepspeed-version": "0.19.8"})
    return project.read("ds_config.json")


def test_a_disabled_removed_block_is_deleted_by_the_safe_fix(project):
    project.write({"ds_config.json": DISABLED})
    [finding] = [f for f in project.check(**{"deepspeed-version": "0.19.8"}).findings if f.code == "DSL602"]
    assert finding.fix.applicability.value == "safe"
    assert finding.fix.message == "delete the removed 'curriculum_learning' block"
    assert _fix(project, unsafe=False) == '{\n  "train_batch_size": 8\n}\n'
    assert _fix(project, unsafe=False) == '{\n  "train_batch_size": 8\n}\n'  # a second fix changes nothing


def test_a_block_that_may_be_on_is_deleted_only_by_the_unsafe_fix(project):
    project.write({"ds_config.json": ENABLED})
    [finding] = [f for f in project.check(**{"deepspeed-version": "0.19.8"}).findings if f.code == "DSL602"]
    assert finding.fix.applicability.value == "unsafe"
    assert _fix(project, unsafe=False) == ENABLED
    fixed = _fix(project, unsafe=True)
    assert fixed == '{\n  "train_batch_size": 8\n}\n' and json.loads(fixed) == {"train_batch_size": 8}


def test_the_only_key_of_an_object_leaves_it_empty(project):
    project.write({"ds_config.json": '{"zero_optimization": {"mics_shard_size": 8}, "train_batch_size": 8}\n'})
    fixed = _fix(project, unsafe=True)
    assert json.loads(fixed) == {"zero_optimization": {}, "train_batch_size": 8}
