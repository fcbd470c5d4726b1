"""`--output-format junit`: JUnit XML, one test suite per file and one failing test case per finding."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import TextIO

from ..model import Finding
from .output import safe_text

# Characters XML 1.0 cannot carry at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", safe_text(text))


def render_junit(findings: list[Finding], out: TextIO) -> None:
    suites = ET.Element("testsuites", name="dslint", tests=str(max(len(findings), 1)), failures=str(len(findings)),
                        errors="0")
    if not findings:
        suite = ET.SubElement(suites, "testsuite", name="dslint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No problems found", classname="dslint")
    for path, group in groupby(findings, key=lambda f: f.path):
        group = list(group)
        name = _clean(path)
        suite = ET.SubElement(suites, "testsuite", name=name, tests=str(len(group)), failures=str(len(group)),
                              errors="0", package="dslint")
        for f in group:
            case = ET.SubElement(suite, "testcase", name=f"dslint.{f.code}", classname=name,
                                 line=str(f.span.start.row), column=str(f.span.start.column))
            failure = ET.SubElement(case, "failure", message=_clean(f.message), type=f.code)
            failure.text = _clean(f"{path}:{f.span.start.row}:{f.span.start.column}: {f.code} {f.name}: {f.message}")
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
