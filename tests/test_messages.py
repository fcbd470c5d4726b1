"""Every finding message is one short sentence: what is wrong here and what to do.

DESIGN.md: about 160 characters; the measured numbers and the long why live in rules/DSLnnn.md.
The real console script runs over the examples, every rule document's Example and the shared
acceptance cases, so the bound holds for the messages users actually see.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_or_skip
from tests.test_catalogue import rules_with_examples, section

ROOT = Path(__file__).resolve().parents[1]
DSLINT = Path(sys.executable).with_name("dslint")
MAX_MESSAGE = 160
MAX_FIX_TITLE = 100
SENTENCE_BOUNDARY = re.compile(r"[.!?] +(?=\S)")


def check_json(root: Path, paths: list[str]) -> list[dict]:
    result = subprocess.run([str(DSLINT), "check", "-o", "json", "--no-cache", "--exit-zero", *paths],
                            cwd=root, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def problems(findings: list[dict]) -> list[str]:
    """What is wrong with each finding's message and fix title, as 'file:row CODE: why'."""
    found = []
    for finding in findings:
        where = f"{finding['filename']}:{finding['location']['row']} {finding['code']}"
        message = finding["message"]
        if len(message) > MAX_MESSAGE:
            found.append(f"{where}: {len(message)} characters: {message}")
        if "\n" in message:
            found.append(f"{where}: a newline: {message!r}")
        if len(SENTENCE_BOUNDARY.findall(message)) > 1:
            found.append(f"{where}: more than one sentence: {message}")
        title = (finding.get("fix") or {}).get("message") or ""
        if len(title) > MAX_FIX_TITLE or "\n" in title:
            found.append(f"{where}: fix title of {len(title)} characters: {title!r}")
    return found


@pytest.fixture(scope="module")
def document_examples(tmp_path_factory) -> list[dict]:
    """Findings of every rule document's Example, each materialised as a project of its own."""
    root = tmp_path_factory.mktemp("examples")
    for code in rules_with_examples():
        for name, text in section(code, "Example").files().items():
            path = root / code / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return check_json(root, sorted(p.name for p in root.iterdir()))


def test_examples_messages_are_one_short_sentence():
    findings = check_json(ROOT, ["examples"])
    assert findings, "the examples produce findings"
    assert problems(findings) == []


def test_rule_document_examples_messages_are_one_short_sentence(document_examples):
    # One run over all documents: every documented rule must still be reported, or its
    # message would go unchecked.
    reported = {f["code"] for f in document_examples}
    assert set(rules_with_examples()) - reported == set()
    assert problems(document_examples) == []


def test_acceptance_cases_messages_are_one_short_sentence():
    cases = shared_or_skip("acceptance", "cases")
    folders = sorted(p.name for p in cases.iterdir() if p.is_dir())
    findings = check_json(cases, folders)
    assert findings, "the acceptance cases produce findings"
    assert problems(findings) == []


def test_the_bound_catches_a_long_message():
    long = {"filename": "t.py", "location": {"row": 1}, "code": "DSL101", "fix": None,
            "message": "every rank uses GPU 0. Nothing else is used. Use the local rank" + "." * 120}
    assert len(problems([long])) == 2
