"""`--output-format json-lines`: one JSON object per finding per line, the `json` format's fields."""
from __future__ import annotations

import json
from typing import TextIO

from ..fixes import prebuild_edits
from ..model import Finding
from .json_format import finding_to_dict


def render_json_lines(findings: list[Finding], out: TextIO, source) -> None:
    prebuild_edits(findings, source)
    for f in findings:
        out.write(json.dumps(finding_to_dict(f, source)) + "\n")
