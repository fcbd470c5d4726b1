"""`--output-format gitlab`: a GitLab code quality report (a JSON array of issues)."""
from __future__ import annotations

import hashlib
import json
import os
from typing import TextIO

from ..model import Finding, Severity

# GitLab's levels are info, minor, major, critical, blocker.
_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _project_path(path: str) -> str:
    """GitLab wants paths relative to the project folder ($CI_PROJECT_DIR in a job)."""
    root = os.environ.get("CI_PROJECT_DIR") or os.getcwd()
    if os.path.isabs(path) or os.environ.get("CI_PROJECT_DIR"):
        try:
            path = os.path.relpath(os.path.abspath(path), root)
        except ValueError:
            pass
    return path.replace(os.sep, "/")


def gitlab_issues(findings: list[Finding]) -> list[dict]:
    issues = []
    seen: set = set()
    for f in findings:
        path = _project_path(f.path)
        # Stable across edits elsewhere in the file: no line number in it; a repeat gets a counter.
        basis = f"{path}\0{f.code}\0{f.message}".encode("utf-8", "surrogatepass")
        fingerprint = hashlib.sha256(basis).hexdigest()
        n = 1
        while fingerprint in seen:
            fingerprint = hashlib.sha256(basis + b"\0" + str(n).encode()).hexdigest()
            n += 1
        seen.add(fingerprint)
        issues.append({
            "description": f"{f.code} {f.message}",
            "check_name": f.code,
            "fingerprint": fingerprint,
            "severity": _SEVERITY[f.severity],
            "location": {"path": path, "lines": {"begin": f.span.start.row, "end": max(f.span.end.row, f.span.start.row)}},
        })
    return issues


def render_gitlab(findings: list[Finding], out: TextIO) -> None:
    json.dump(gitlab_issues(findings), out, indent=2)
    out.write("\n")
