"""Every rule's documentation is its test, as Fixit's VALID/INVALID examples are.

A `rules/DSLnnn.md` document gives four kinds of code, all extracted here:

- **Example** (INVALID): every line the rule must report is marked at its end with a plain
  comment `# ← DSLnnn` (Python, shell, Makefile, YAML). JSON has no comments, so JSON rows are
  marked by an HTML comment anywhere in the section, by convention on the line just before the
  block: `<!-- ← DSL601: ds_config.json:3 -->` (several: `ds_config.json:3, ds_config.json:7`;
  rows are 1-based rows of the file). The markers stay in the files the rule reads (nothing is
  stripped before linting). The findings of the document's code must be exactly the marked rows:
  a finding counts for every mark inside its row..end_row, and a finding that covers no mark is
  an unexpected one. Findings of other codes in the Example are fine.
- **Fix**: flagged by no rule at all. It shows every file that has a marked row. Where the rule
  fixes automatically, `dslint fix --unsafe --select DSLnnn` of the Example gives exactly the
  Fix (compared after removing the `# ← DSLnnn` markers, which the fix keeps as comments), and a
  second fix changes nothing.
- **When not to flag** (VALID): each code block is a small project that must produce no finding
  of the document's code. A block whose info string names no file (```python) is a project of
  its own. Consecutive blocks that name their files (```python train.py, then
  ```python utils/dist.py) with only blank lines between them form one project; any text
  between two blocks, or a file name seen again, starts the next project. A VALID project must
  also be read and checked (no DSL001-DSL003), or it would test nothing. Its test id names the
  line of its first fence: `DSL104-line57` is rules/DSL104.md line 57.

Blocks are fenced ```python, ```json, ```sh (also py, bash, make), optionally followed by a file
name; without one the file is train.py, ds_config.json, launch.sh or Makefile. Within the Example
and within the Fix, all blocks form one project, so their file names must differ. Other fences
(```text, ```console) are prose.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pytest

from dslint.docs import docs_folder, rule_doc
from dslint.rules.registry import all_rules

DEFAULT_NAMES = {"python": "train.py", "py": "train.py", "json": "ds_config.json", "sh": "launch.sh",
                 "bash": "launch.sh", "make": "Makefile", "makefile": "Makefile"}
ENGINE_CODES_WITHOUT_EXAMPLE = {"DSL002", "DSL003"}
ENGINE_CODES = {"DSL001", "DSL002", "DSL003"}  # syntax error, unreadable file, internal error

LINE_MARK = re.compile(r"[ \t]*#[ \t]*←[ \t]*(?P<code>DSL\d{3})[ \t]*$", re.MULTILINE)
ROWS_MARK = re.compile(r"<!--\s*←\s*(?P<code>DSL\d{3})\s*:\s*(?P<rows>.*?)\s*-->", re.DOTALL)
FENCE = re.compile(r"^```(?P<lang>\w*)[ \t]*(?P<name>[^\n]*)$")


@dataclass
class Block:
    lang: str
    name: str  # the file's path in the project
    named: bool  # the info string names the file
    text: str
    doc_row: int  # row of the opening fence in rules/DSLnnn.md
    after_prose: bool  # text other than blank lines lies between the previous block and this one


@dataclass
class Section:
    code: str
    title: str
    text: str = ""
    blocks: list[Block] = field(default_factory=list)

    def files(self) -> dict[str, str]:
        """All blocks as one project (Example, Fix)."""
        files: dict[str, str] = {}
        for block in self.blocks:
            assert block.name not in files, f"{self.code} {self.title}: two blocks are named {block.name}"
            files[block.name] = block.text
        return files

    def marks(self) -> set[tuple[str, int]]:
        """The (file, row) pairs marked `# ← DSLnnn` or listed in `<!-- ← DSLnnn: file:row -->`."""
        marks = set()
        names = {block.name: block for block in self.blocks}
        for block in self.blocks:
            for match in LINE_MARK.finditer(block.text):
                assert match["code"] == self.code, (
                    f"{self.code} {self.title}: {block.name} marks {match['code']}; mark only this rule's rows")
                marks.add((block.name, block.text.count("\n", 0, match.start()) + 1))
        for match in ROWS_MARK.finditer(self.text):
            assert match["code"] == self.code, f"{self.code} {self.title}: a row list for {match['code']}"
            for item in match["rows"].split(","):
                name, _, row = item.strip().rpartition(":")
                assert name in names and row.isdigit(), f"{self.code} {self.title}: bad row '{item.strip()}'"
                assert 1 <= int(row) <= len(names[name].text.splitlines()), f"{self.code}: {item.strip()} is past the end"
                marks.add((name, int(row)))
        return marks

    def projects(self) -> list[list[Block]]:
        """VALID projects: one per unnamed block, or per run of named blocks with nothing between."""
        projects: list[list[Block]] = []
        for block in self.blocks:
            current = projects[-1] if projects else None
            joins = (current is not None and block.named and current[-1].named and not block.after_prose
                     and block.name not in {b.name for b in current})
            if joins:
                current.append(block)
            else:
                projects.append([block])
        return projects


def section(code: str, title: str) -> Section:
    """The `## <title>` section of rules/<code>.md with its code blocks."""
    doc = rule_doc(code) or ""
    result = Section(code, title)
    lines = doc.splitlines(keepends=True)
    start = next((i + 1 for i, line in enumerate(lines) if re.fullmatch(rf"##\s+{re.escape(title)}\s*", line.strip())), None)
    if start is None:
        return result
    end, in_block = len(lines), False
    for i in range(start, len(lines)):
        in_block ^= lines[i].startswith("```")
        if not in_block and lines[i].startswith("## "):  # a `## ` comment inside a block is code
            end = i
            break
    result.text = "".join(lines[start:end])
    i, gap = start, ""
    while i < end:
        fence = FENCE.match(lines[i].rstrip("\n"))
        if not fence:
            gap += lines[i]
            i += 1
            continue
        close = next(j for j in range(i + 1, end + 1) if j == end or lines[j].startswith("```"))
        assert close < end, f"{code} {title}: the block at line {i + 1} is not closed"
        lang, name = fence["lang"].lower(), fence["name"].strip()
        if lang in DEFAULT_NAMES:
            result.blocks.append(Block(lang, name or DEFAULT_NAMES[lang], bool(name), "".join(lines[i + 1:close]),
                                       doc_row=i + 1, after_prose=bool(gap.strip())))
            gap = ""
        else:
            gap += "".join(lines[i:close + 1])
        i = close + 1
    return result


def without_marks(text: str) -> str:
    return LINE_MARK.sub("", text)


def relative(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def reported_rows(findings, code: str, marks: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """(file, row) of each finding of `code`: the marks its rows cover, else its first row."""
    rows = set()
    for finding in findings:
        if finding.code != code:
            continue
        name, first, last = relative(finding.path), finding.span.start.row, finding.span.end.row
        covered = {(n, r) for n, r in marks if n == name and first <= r <= last}
        rows |= covered or {(name, first)}
    return rows


def described(findings) -> str:
    return "; ".join(f"{relative(f.path)}:{f.span.start.row} {f.code} {f.message}" for f in findings) or "nothing"


def documented_rules():
    return sorted(all_rules())


def rules_with_static_examples():
    # Probe findings come from observations of running jobs, not from files: their tests replay
    # observations recorded on the GPU machine (tests/test_probe_findings.py).
    return [code for code in documented_rules() if all_rules()[code].kind != "probe"]


def rules_with_examples():
    return [code for code in rules_with_static_examples() if code not in ENGINE_CODES_WITHOUT_EXAMPLE]


def fixable_rules():
    return [code for code in rules_with_examples() if all_rules()[code].fix is not None]


def valid_cases() -> list:
    return [pytest.param(code, blocks, id=f"{code}-line{blocks[0].doc_row}")
            for code in rules_with_static_examples() for blocks in section(code, "When not to flag").projects()]


def test_every_rule_has_a_document_with_the_sections():
    missing = []
    for code in documented_rules():
        doc = rule_doc(code)
        if doc is None:
            missing.append(f"{code}: no rules/{code}.md")
            continue
        assert doc.startswith(f"# {code}: {all_rules()[code].name}\n"), f"{code}: title must be '# {code}: <name>'"
        for title in ("Why it hurts", "When not to flag", "Evidence"):
            assert re.search(rf"^## {title}\s*$", doc, re.MULTILINE), f"{code}: missing '## {title}'"
        assert "https://" in doc.split("## Evidence", 1)[1], f"{code}: Evidence needs public links"
    assert not missing, missing


def test_every_document_names_a_registered_rule():
    folder = docs_folder()
    assert folder is not None
    codes = {p.stem for p in folder.glob("DSL*.md")}
    assert codes - set(all_rules()) == set()


@pytest.mark.parametrize("code", rules_with_static_examples())
def test_only_the_example_marks_rows(code):
    for title in ("Fix", "When not to flag"):
        found = section(code, title)
        assert not any(LINE_MARK.search(b.text) for b in found.blocks), f"{code}: a '# ← DSL' marker in {title}"
        assert not ROWS_MARK.search(found.text), f"{code}: a row list in {title}"
    if code in ENGINE_CODES_WITHOUT_EXAMPLE:
        assert not section(code, "Example").blocks, f"{code}: an Example for an engine code without one"


@pytest.mark.parametrize("code", rules_with_examples())
def test_example_reports_exactly_the_marked_rows(code, make_project):
    example = section(code, "Example")
    assert example.blocks, f"{code}: the documentation needs an Example block"
    marks = example.marks()
    assert marks, f"{code}: mark the reported rows of the Example with '# ← {code}'"
    findings = make_project("example").write(example.files()).check().findings
    reported = reported_rows(findings, code, marks)
    assert reported == marks, (
        f"{code}: reported but not marked {sorted(reported - marks)}, marked but not reported "
        f"{sorted(marks - reported)} (findings: {described(findings)})")


@pytest.mark.parametrize("code", rules_with_examples())
def test_fix_is_flagged_by_no_rule(code, make_project):
    example, fix = section(code, "Example"), section(code, "Fix")
    assert fix.blocks, f"{code}: the documentation needs a Fix block"
    flagged_files = {name for name, _ in example.marks()}
    assert flagged_files <= set(fix.files()), f"{code}: the Fix does not show {sorted(flagged_files - set(fix.files()))}"
    findings = make_project("fix").write(fix.files()).check().findings
    assert not findings, f"{code}: the Fix is flagged: {described(findings)}"


@pytest.mark.parametrize("code", fixable_rules())
def test_fixing_the_example_gives_exactly_the_fix(code, make_project):
    example, fix = section(code, "Example").files(), section(code, "Fix").files()
    project = make_project("example").write(example)
    project.fix(unsafe=True, select=[code])
    once = {name: project.read(name) for name in example}
    changed = {name for name in example if once[name] != example[name]}
    assert changed, f"{code}: fixing the Example changed nothing"
    assert changed <= set(fix), f"{code}: the fix changes {sorted(changed - set(fix))}, which the Fix does not show"
    for name in set(fix) & set(example):
        assert without_marks(once[name]) == fix[name], f"{code}: fixing the Example does not give the Fix ({name})"
    project.fix(unsafe=True, select=[code])
    for name in example:
        assert project.read(name) == once[name], f"{code}: a second fix changed {name}"


@pytest.mark.parametrize("code, blocks", valid_cases())
def test_when_not_to_flag_blocks_are_not_flagged(code, blocks, make_project):
    where = f"rules/{code}.md line {blocks[0].doc_row}"
    findings = make_project("valid").write({block.name: block.text for block in blocks}).check().findings
    # A case dslint cannot read or crashes on would pass without testing anything.
    unread = [f for f in findings if f.code in ENGINE_CODES]
    assert not unread, f"{code}: the case at {where} is not checked: {described(unread)}"
    own = [f for f in findings if f.code == code]
    assert not own, f"{code}: the case at {where} is flagged: {described(own)}"
