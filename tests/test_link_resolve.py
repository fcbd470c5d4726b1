"""link._resolve: Path.resolve() with folders resolved once per project; same answers."""
import itertools
import os
from types import SimpleNamespace

from dslint.facts.link import _resolve


def test_resolve_matches_path_resolve_through_links_dots_and_missing_files(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "b" / "f.py").write_text("x")
    (tmp_path / "c" / "g.json").write_text("{}")
    os.symlink(tmp_path / "a" / "b", tmp_path / "link_dir")
    os.symlink(tmp_path / "c" / "g.json", tmp_path / "a" / "link.json")
    os.symlink("../c", tmp_path / "a" / "rel")
    os.symlink(tmp_path / "a" / "link.json", tmp_path / "chain.json")
    parts = ["a", "b", "..", ".", "link_dir", "rel", "f.py", "g.json", "link.json", "chain.json", "missing"]
    project = SimpleNamespace()
    checked = 0
    for length in (1, 2, 3):
        for combo in itertools.product(parts, repeat=length):
            path = tmp_path.joinpath(*combo)
            assert _resolve(project, path) == path.resolve(), path
            checked += 1
    assert checked == 11 + 121 + 1331
    assert _resolve(project, tmp_path / "chain.json") == tmp_path / "c" / "g.json"
