"""`--output-format json`: ruff's shape, so tooling that reads ruff's JSON reads ours."""
from __future__ import annotations

import json
from typing import TextIO

from ..fixes import edits_for, prebuild_edits
from ..model import Finding
from ..rules.registry import RULES


def finding_to_dict(finding: Finding, source) -> dict:
    rule = RULES.get(finding.code)
    fix = None
    if finding.fix is not None:
        text = source.get(finding.path)
        edits = edits_for(finding, text) if text is not None else None  # (built in the worker when it could)
        if edits:
            fix = {
                "applicability": finding.fix.applicability.value,
                "message": finding.fix.message,
                "edits": [{"content": e.content, "location": {"row": e.start.row, "column": e.start.column},
                           "end_location": {"row": e.end.row, "column": e.end.column}} for e in edits],
            }
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity.value,
        "filename": finding.path,
        "location": {"row": finding.span.start.row, "column": finding.span.start.column},
        "end_location": {"row": finding.span.end.row, "column": finding.span.end.column},
        "fix": fix,
        "noqa_row": finding.span.start.row,
        "url": rule.url if rule else None,
        "related": [{"filename": p, "location": {"row": s.start.row, "column": s.start.column}, "message": note}
                    for p, s, note in finding.related],
    }


def render_json(findings: list[Finding], out: TextIO, source) -> None:
    prebuild_edits(findings, source)
    json.dump([finding_to_dict(f, source) for f in findings], out, indent=2)
    out.write("\n")
