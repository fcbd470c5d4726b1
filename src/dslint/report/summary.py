"""What comes after the findings: the summary line, `--statistics` and `--show-fixes`."""
from __future__ import annotations

import re
from collections import Counter
from typing import Optional, TextIO

from ..model import Applicability, Finding


def fixable(finding: Finding, unsafe_fixes: bool) -> bool:
    """Whether `dslint fix` (with `--unsafe-fixes` when given) would apply this finding's fix."""
    return finding.fix is not None and (unsafe_fixes or finding.fix.applicability == Applicability.SAFE)


def _plural(n: int, word: str, suffix: str = "s") -> str:
    return f"{n} {word}{suffix if n != 1 else ''}"


def summary_lines(findings: list[Finding], files: int, unsafe_fixes: bool) -> list[str]:
    """ruff's summary: the count, then what `fix` would do and how many unsafe fixes are hidden."""
    if not findings:
        return [f"All checks passed ({_plural(files, 'file')} checked)."]
    lines = [f"Found {_plural(len(findings), 'problem')} in {files} checked file{'s' if files != 1 else ''}."]
    available = sum(1 for f in findings if fixable(f, unsafe_fixes))
    hidden = 0 if unsafe_fixes else sum(1 for f in findings if f.fix is not None and not fixable(f, False))
    needs_unsafe = unsafe_fixes and any(fixable(f, True) and not fixable(f, False) for f in findings)
    command = "`dslint fix --unsafe-fixes`" if needs_unsafe else "`dslint fix`"
    hint = f"{_plural(hidden, 'hidden fix', 'es')} can be enabled with the `--unsafe-fixes` option" if hidden else ""
    if available:
        lines.append(f"[*] {available} fixable with {command}" + (f" ({hint})." if hint else "."))
    elif hint:
        lines.append(f"No fixes available ({hint}).")
    return lines


def statistics(findings: list[Finding], unsafe_fixes: bool) -> list[dict]:
    """One row per code: count, name, whether all / some of its findings are fixable; most first."""
    counts = Counter(f.code for f in findings)
    names = {f.code: f.name for f in findings}
    fixes = Counter(f.code for f in findings if fixable(f, unsafe_fixes))
    rows = [{"code": code, "name": names[code], "count": n, "fixable": fixes[code] == n, "fixable_count": fixes[code]}
            for code, n in counts.items()]
    rows.sort(key=lambda r: (-r["count"], r["code"]))
    return rows


def write_statistics(findings: list[Finding], out: TextIO, fmt: str, unsafe_fixes: bool) -> None:
    """ruff's `--statistics`: `count<TAB>code<TAB>[*] name` (JSON for the JSON formats)."""
    rows = statistics(findings, unsafe_fixes)
    if fmt in ("json", "json-lines"):
        import json

        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    if not rows:
        return
    count_width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    any_fixable = any(r["fixable_count"] for r in rows)
    for r in rows:
        marker = ""
        if any_fixable:
            marker = "[*] " if r["fixable"] else "[-] " if r["fixable_count"] else "[ ] "
        out.write(f"{str(r['count']).rjust(count_width)}\t{r['code'].ljust(code_width)}\t{marker}{r['name']}\n")


def fixed_lines(before: list[Finding], after: list[Finding]) -> list[str]:
    """`--show-fixes` after `fix`: ruff's "Fixed N problems:" list, per file and code."""
    gone = Counter((f.path, f.code) for f in before) - Counter((f.path, f.code) for f in after)
    if not gone:
        return []
    names = {f.code: f.name for f in before}
    lines = [f"Fixed {_plural(sum(gone.values()), 'problem')}:"]
    for path in sorted({p for p, _ in gone}):
        lines.append(f"- {path}:")
        for (p, code), n in sorted(gone.items(), key=lambda item: (-item[1], item[0][1])):
            if p == path:
                lines.append(f"    {n} × {code} ({names.get(code, code)})")
    return lines


def write_available_fixes(findings: list[Finding], out: TextIO, source, unsafe_fixes: bool) -> None:
    """`check --show-fixes`: every available fix as a diff, under its rule's *Why it hurts*."""
    import difflib

    from ..fixes import apply_edits, edits_for, prebuild_edits

    with_fix = [f for f in findings if f.fix is not None]
    prebuild_edits(with_fix, source)
    if not with_fix:
        out.write("No fixes available.\n")
        return
    out.write("Available fixes:\n")
    for code in sorted({f.code for f in with_fix}):
        group = [f for f in with_fix if f.code == code]
        out.write(f"\n{code} {group[0].name}\n")
        why = why_it_hurts(code)
        if why:
            out.write("".join(f"  {line}\n" if line else "\n" for line in why.splitlines()))
        for f in group:
            label = "safe" if f.fix.applicability == Applicability.SAFE else \
                "unsafe, with --unsafe-fixes" if not unsafe_fixes else "unsafe"
            out.write(f"\n  {f.path}:{f.span.start.row}:{f.span.start.column}: {f.fix.message} [{label}]\n")
            text = source.get(f.path)
            edits = edits_for(f, text) if text is not None else None
            if not edits:
                out.write("    (the fix cannot be built on the current file)\n")
                continue
            new_text, _ = apply_edits(text, edits)
            diff = difflib.unified_diff(text.splitlines(True), new_text.splitlines(True), n=1)
            for line in list(diff)[2:]:  # the ---/+++ header would only repeat the path
                out.write(f"    {line.rstrip(chr(10))}\n")


def why_it_hurts(code: str) -> Optional[str]:
    """The prose of the rule doc's *Why it hurts* section (code blocks left to `explain`)."""
    from ..docs import rule_doc

    doc = rule_doc(code)
    if not doc:
        return None
    match = re.search(r"^##\s+Why it hurts\s*$(.*?)(?=^##\s|\Z)", doc, re.MULTILINE | re.DOTALL)
    if not match:
        return None
    prose = re.sub(r"^```.*?^```\s*$", "", match.group(1), flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"\n{3,}", "\n\n", prose).strip() or None
