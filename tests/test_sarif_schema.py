"""`dslint check --output-format sarif` against the SARIF 2.1.0 JSON schema (vendored, no network)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"

TRAIN = '''import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group(backend="nccl")
torch.cuda.set_device(0)  # "ünïcödé" 🚀
state = torch.load("ckpt.pt")
sampler = DistributedSampler(range(10), shuffle=True)
loader = DataLoader(range(10), sampler=sampler)
for epoch in range(3):
    for batch in loader:
        pass
'''


def sarif_of(folder: Path) -> tuple[dict, int]:
    run = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "--output-format", "sarif", "."],
                         cwd=folder, capture_output=True, text=True, timeout=120)
    return json.loads(run.stdout), run.returncode


# RFC 3986 characters, with % only as a percent-encoding. jsonschema checks "uri"/"uri-reference"
# formats only when an optional package is installed, so the test checks them itself.
URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")


def uris(node, key=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from uris(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from uris(v, key)
    elif key in ("uri", "helpUri", "informationUri", "$schema"):
        yield node


def validate(document: dict) -> None:
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10])
    bad = [u for u in uris(document) if not isinstance(u, str) or not u or not URI_REFERENCE.fullmatch(u)]
    assert not bad, f"not URI references: {bad}"


def test_the_vendored_schema_rejects_a_broken_log():
    """The check has teeth: a result without a message is not SARIF."""
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "dslint"}},
                                            "results": [{"ruleId": "DSL101", "locations": []}]}]}
    with pytest.raises(AssertionError):
        validate(broken)
    spaced = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "dslint"}}, "results": [{
        "message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a b.py"}}}]}]}]}
    with pytest.raises(AssertionError):
        validate(spaced)


def test_sarif_output_with_findings_in_every_kind_of_file_is_valid(tmp_path):
    (tmp_path / "sub dir").mkdir()
    (tmp_path / "sub dir" / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    (tmp_path / "ds_config.json").write_text('{"train_batch_size": 8, "zero_optimization": {"stage": 3,,}}\n')
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node=4 'sub dir/train.py'\n")
    document, code = sarif_of(tmp_path)
    assert code == 1
    validate(document)
    results = document["runs"][0]["results"]
    codes = {r["ruleId"] for r in results}
    assert {"DSL001", "DSL101", "DSL102"} <= codes
    rules = [rule["id"] for rule in document["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    locations = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "sub%20dir/train.py" in locations


def test_sarif_output_without_findings_is_valid(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nprint(torch.ones(1))\n")
    document, code = sarif_of(tmp_path)
    assert code == 0
    validate(document)
    assert document["runs"][0]["results"] == []
