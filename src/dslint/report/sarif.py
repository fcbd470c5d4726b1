"""`--output-format sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from .. import __version__
from ..model import Finding, Severity
from ..rules.registry import all_rules
from .output import safe_text

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _summary(code: str) -> str:
    from ..docs import rule_summary

    return rule_summary(code) or code


def _uri(path: str) -> str:
    """A relative URI reference: "a b.py" -> "a%20b.py"; a name that is not UTF-8 keeps its bytes
    percent-encoded (os.fsencode undoes the surrogateescape that os.fsdecode applied)."""
    return quote(os.fsencode(Path(path).as_posix()))


def sarif_document(findings: list[Finding]) -> dict:
    rules = all_rules()
    used = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(used)}
    driver_rules = []
    for code in used:
        rule = rules.get(code)
        driver_rules.append({
            "id": code,
            "name": rule.name if rule else code,
            "shortDescription": {"text": _summary(code)},
            "helpUri": rule.url if rule else None,
            "defaultConfiguration": {"level": _LEVEL[rule.severity] if rule else "warning"},
        })
    results = []
    for f in findings:
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _LEVEL[f.severity],
            "message": {"text": safe_text(f.message)},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": f.span.start.row, "startColumn": f.span.start.column,
                               "endLine": f.span.end.row, "endColumn": max(f.span.end.column, 1)},
                }
            }],
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "dslint", "version": __version__,
                                "informationUri": "https://github.com/dslint/dslint", "rules": driver_rules}},
            "results": results,
        }],
    }


def render_sarif(findings: list[Finding], out: TextIO) -> None:
    json.dump(sarif_document(findings), out, indent=2)
    out.write("\n")
