"""Every rule's documentation is its test: the Example must be flagged, the Fix must not, and
where the rule fixes automatically, fixing the Example must give exactly the Fix.

Blocks are ```python, ```json or ```sh, optionally followed by a file name
(```json ds_config.json); all blocks of one section form one small project.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dslint.docs import docs_folder, rule_doc
from dslint.rules.registry import all_rules

DEFAULT_NAMES = {"python": "train.py", "py": "train.py", "json": "ds_config.json", "sh": "launch.sh",
                 "bash": "launch.sh", "make": "Makefile", "makefile": "Makefile"}
ENGINE_CODES_WITHOUT_EXAMPLE = {"DSL002", "DSL003"}


def section_files(doc: str, section: str) -> dict[str, str]:
    match = re.search(rf"^##\s+{re.escape(section)}\s*$(.*?)(?=^##\s|\Z)", doc, re.MULTILINE | re.DOTALL)
    files: dict[str, str] = {}
    if not match:
        return files
    for block in re.finditer(r"^```(\w*)[ \t]*([^\n]*)\n(.*?)^```", match.group(1), re.MULTILINE | re.DOTALL):
        lang, name, body = block.group(1).lower(), block.group(2).strip(), block.group(3)
        if lang not in DEFAULT_NAMES:
            continue
        files[name or DEFAULT_NAMES[lang]] = body
    return files


def documented_rules():
    return sorted(all_rules())


def rules_with_static_examples():
    # Probe findings come from observations of running jobs, not from files: their tests replay
    # observations recorded on the GPU machine (tests/test_probe_findings.py).
    return [code for code in documented_rules() if all_rules()[code].kind != "probe"]


def test_every_rule_has_a_document_with_the_sections():
    missing = []
    for code in documented_rules():
        doc = rule_doc(code)
        if doc is None:
            missing.append(f"{code}: no rules/{code}.md")
            continue
        assert doc.startswith(f"# {code}: {all_rules()[code].name}\n"), f"{code}: title must be '# {code}: <name>'"
        for section in ("Why it hurts", "When not to flag", "Evidence"):
            assert re.search(rf"^## {section}\s*$", doc, re.MULTILINE), f"{code}: missing '## {section}'"
        assert "https://" in doc.split("## Evidence", 1)[1], f"{code}: Evidence needs public links"
    assert not missing, missing


def test_every_document_names_a_registered_rule():
    folder = docs_folder()
    assert folder is not None
    codes = {p.stem for p in folder.glob("DSL*.md")}
    assert codes - set(all_rules()) == set()


@pytest.mark.parametrize("code", rules_with_static_examples())
def test_example_is_flagged_and_fix_is_clean(code, project):
    doc = rule_doc(code)
    if doc is None:
        pytest.fail(f"no rules/{code}.md")
    example = section_files(doc, "Example")
    if not example:
        assert code in ENGINE_CODES_WITHOUT_EXAMPLE, f"{code}: the documentation needs an Example block"
        return
    project.write(example)
    codes = project.codes()
    assert code in codes, f"{code}: the Example is not flagged (got {codes})"
    fixed = section_files(doc, "Fix")
    assert fixed, f"{code}: the documentation needs a Fix block"
    rule = all_rules()[code]
    if rule.fix is not None:
        project.fix(unsafe=True, select=[code])
        for name, expected in fixed.items():
            if name in example:
                assert project.read(name) == expected, f"{code}: fixing the Example does not give the Fix ({name})"
        project.fix(unsafe=True, select=[code])
        for name, expected in fixed.items():
            if name in example:
                assert project.read(name) == expected, f"{code}: a second fix changed {name}"
    clean = type(project)(project.root / "fixed")
    clean.root.mkdir()
    clean.write(fixed)
    assert code not in clean.codes(), f"{code}: the Fix is still flagged"
