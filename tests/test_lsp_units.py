"""The language server's pure parts, in-process: positions, fix data, the noqa edit, the linter."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("lsprotocol")

from lsprotocol import types  # noqa: E402

from dslint.fixes import apply_edits  # noqa: E402
from dslint.lsp_convert import fix_from_data, fix_to_data, to_position, units  # noqa: E402
from dslint.lsp_lint import OpenDocument, WorkspaceLinter, is_excluded  # noqa: E402
from dslint.lsp_noqa import noqa_edit  # noqa: E402
from dslint.model import Applicability, Location  # noqa: E402
from dslint.fixes import make_fix  # noqa: E402
from dslint.settings import Settings  # noqa: E402
from dslint.textpos import LineIndex  # noqa: E402

UTF8, UTF16, UTF32 = types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf32

TRAIN = '''import torch
import torch.distributed as dist

dist.init_process_group(backend="nccl")
state = torch.load("ckpt.pt")
'''


@pytest.mark.parametrize("text, utf8, utf16, utf32", [
    ("abc", 3, 3, 3),
    ("é", 2, 1, 1),
    ("🚀", 4, 2, 1),
    ("a🚀é", 7, 4, 3),
])
def test_units_per_encoding(text, utf8, utf16, utf32):
    assert (units(text, UTF8), units(text, UTF16), units(text, UTF32)) == (utf8, utf16, utf32)


def test_positions_convert_character_columns_to_utf16():
    text = 'x = "🚀é"; y = torch.load(p)\nnext\n'
    lines = LineIndex(text)
    column = text.index("torch") + 1  # 1-based character column
    position = to_position(lines, Location(1, column), UTF16)
    assert position == types.Position(line=0, character=column - 1 + 1)  # the rocket counts twice
    assert to_position(lines, Location(1, column), UTF8) == types.Position(line=0, character=column - 1 + 3 + 1)
    assert to_position(lines, Location(9, 1), UTF16) == types.Position(line=2, character=0)  # clamped to the text


def test_fix_descriptor_survives_the_json_round_trip():
    fix = make_fix("edits", "Replace", Applicability.UNSAFE, edits=((3, 5, "xy", "ab"),), row=2)
    data = fix_to_data(fix)
    import json

    assert fix_from_data(json.loads(json.dumps(data))) == fix
    assert fix_from_data({"fixer": "x"}) is None and fix_from_data("junk") is None


def _noqa(text: str, rows, code="DSL102", kind="python") -> str:
    edit = noqa_edit(text, rows, code, kind)
    return None if edit is None else apply_edits(text, [edit])[0]


def test_noqa_is_appended_to_the_line():
    assert _noqa("x = torch.load(p)\n", [1]) == "x = torch.load(p)  # noqa: DSL102\n"
    assert _noqa("x = torch.load(p)   \r\n", [1]) == "x = torch.load(p)  # noqa: DSL102\r\n"


def test_noqa_extends_an_existing_list_and_never_repeats_a_code():
    assert _noqa("x = f()  # noqa: E501\n", [1]) == "x = f()  # noqa: E501, DSL102\n"
    assert _noqa("x = f()  # noqa: DSL101 trailing words\n", [1]) == "x = f()  # noqa: DSL101, DSL102 trailing words\n"
    assert _noqa("x = f()  # noqa: DSL102\n", [1]) is None


def test_noqa_text_inside_a_string_is_not_a_comment():
    text = 'x = f("# noqa: E501")\n'
    assert _noqa(text, [1]) == 'x = f("# noqa: E501")  # noqa: DSL102\n'


def test_noqa_skips_lines_where_a_comment_would_change_the_code():
    continued = "x = torch.load(p) + \\\n    1\n"
    assert _noqa(continued, [1, 2]) == "x = torch.load(p) + \\\n    1  # noqa: DSL102\n"
    in_string = 'x = torch.load("""a\nb""")\n'
    assert _noqa(in_string, [1, 2]) == 'x = torch.load("""a\nb""")  # noqa: DSL102\n'
    assert _noqa(continued, [1]) is None


def test_noqa_on_a_shell_line():
    assert _noqa("torchrun train.py\n", [1], "DSL201", "launch") == "torchrun train.py  # noqa: DSL201\n"
    assert _noqa("torchrun \\\n  train.py\n", [1, 2], "DSL201", "launch") == "torchrun \\\n  train.py  # noqa: DSL201\n"


def test_the_engine_honours_the_noqa_the_action_writes(project):
    project.write({"train.py": _noqa(TRAIN, [5]).replace("DSL102", "E501, DSL102")})
    assert "# noqa: E501, DSL102" in project.read("train.py")
    assert project.codes() == []


def test_linter_reads_buffers_and_reuses_cached_neighbours(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN.replace('torch.load("ckpt.pt")', 'torch.load("c", map_location="cpu")'))
    (tmp_path / "other.py").write_text(TRAIN)
    linter = WorkspaceLinter()
    path = os.path.realpath(tmp_path / "train.py")
    outcome = linter.lint([OpenDocument(path, TRAIN, 1, "python")])
    assert [f.code for f in outcome.findings[path]] == ["DSL102"]  # the buffer, not the clean file on disk
    assert list(outcome.findings) == [path]  # only open documents are reported
    cache = next(iter(linter._caches.values()))
    cached = dict(cache.entries)
    assert any(key.startswith(os.path.realpath(tmp_path / "other.py")) for key in cached)
    assert not any(key.startswith(path) for key in cached)  # edited buffers are never cached
    outcome = linter.lint([OpenDocument(path, TRAIN + "# edit\n", 2, "python")])
    assert [f.code for f in outcome.findings[path]] == ["DSL102"]
    assert cache.entries == cached


def test_saved_buffers_come_from_the_cache_and_edited_ones_do_not(tmp_path):
    (tmp_path / "saved.py").write_text(TRAIN)
    (tmp_path / "edited.py").write_text(TRAIN)
    saved, edited = (os.path.realpath(tmp_path / n) for n in ("saved.py", "edited.py"))
    linter = WorkspaceLinter()
    docs = [OpenDocument(saved, TRAIN, 1, "python"), OpenDocument(edited, TRAIN + "x = 1\n", 2, "python")]
    assert linter.overlay_of(docs) == {edited: TRAIN + "x = 1\n"}
    outcome = linter.lint(docs)
    assert [f.code for f in outcome.findings[saved]] == [f.code for f in outcome.findings[edited]] == ["DSL102"]
    cache = next(iter(linter._caches.values()))
    assert any(key.startswith(saved) for key in cache.entries)
    assert not any(key.startswith(edited) for key in cache.entries)
    (tmp_path / "saved.py").write_text(TRAIN + "# changed on disk\n")  # the buffer is now unsaved
    assert linter.overlay_of(docs) == {saved: TRAIN, edited: TRAIN + "x = 1\n"}


def test_linter_reports_invalid_settings_instead_of_linting(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.dslint]\nselcet = ['DSL1']\n")
    linter = WorkspaceLinter()
    path = str(tmp_path / "train.py")
    outcome = linter.lint([OpenDocument(path, TRAIN, 1, "python")])
    assert outcome.findings == {path: []}
    assert "selcet" in outcome.errors[0]


def test_library_and_excluded_paths(tmp_path):
    settings = Settings.model_validate({"exclude": ["third_party/"]})
    assert is_excluded(str(tmp_path / ".venv/lib/site-packages/x/train.py"), tmp_path, settings)
    assert is_excluded(str(tmp_path / "third_party/a/train.py"), tmp_path, settings)
    assert not is_excluded(str(tmp_path / "src/train.py"), tmp_path, settings)


def test_fix_all_returns_the_fixed_buffer(tmp_path):
    linter = WorkspaceLinter()
    path = os.path.realpath(tmp_path) + "/train.py"  # not on disk: an unsaved new file
    doc = OpenDocument(path, TRAIN, 1, "python")
    assert linter.fix_all(doc, [doc]) == TRAIN.replace('torch.load("ckpt.pt")', 'torch.load("ckpt.pt", map_location="cpu")')
    fixed = OpenDocument(path, linter.fix_all(doc, [doc]), 2, "python")
    assert linter.fix_all(fixed, [fixed]) is None


def test_lsp_without_pygls_says_how_to_repair_the_install():
    import subprocess
    import sys

    code = "import sys; sys.modules['pygls'] = None\nfrom dslint.cli import main\nmain(['lsp'])"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == ("dslint: error: `dslint lsp` needs pygls, which is missing from this environment: "
                                 "pip install --force-reinstall dslint")


def test_a_script_in_the_home_folder_does_not_walk_the_home_folder(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    (tmp_path / "ds_config.json").write_text('{"train_batch_size": 8}')
    (tmp_path / "projects" / "big").mkdir(parents=True)
    (tmp_path / "projects" / "big" / "train.py").write_text(TRAIN)
    from dslint.lsp_lint import _folder_paths

    assert _folder_paths(tmp_path) == [str(tmp_path / "ds_config.json")]
    assert _folder_paths(tmp_path / "projects") == [str(tmp_path / "projects")]
    linter = WorkspaceLinter()
    path = str(tmp_path / "train.py")
    outcome = linter.lint([OpenDocument(path, TRAIN, 1, "python")])
    assert [f.code for f in outcome.findings[path]] == ["DSL102"]
    assert not any("projects" in key for cache in linter._caches.values() for key in cache.entries)


def test_documents_in_nested_folders_are_reported_once(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "train.py").write_text(TRAIN)  # on disk: the parent folder's walk sees it
    top, nested = os.path.realpath(tmp_path / "train.py"), os.path.realpath(tmp_path / "sub" / "train.py")
    outcome = WorkspaceLinter().lint([OpenDocument(nested, TRAIN, 1, "python"), OpenDocument(top, TRAIN, 1, "python")])
    assert [f.code for f in outcome.findings[top]] == [f.code for f in outcome.findings[nested]] == ["DSL102"]
