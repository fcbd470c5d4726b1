"""Launch commands documented in README/docs Markdown (sources/launch/markdown.py): read in place,
linked like a .sh launch line, reported at the README line, never rewritten."""
from pathlib import Path

from dslint.model import Location
from dslint.settings import Settings
from dslint.sources.discover import discover
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.markdown import has_launch_block, is_markdown_launch_path, shell_view

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "zero_offload_torchrun"

README = """# Fine-tune a 270M model with ZeRO-Offload

Install the requirements:

```bash
pip install -r requirements.txt
```

Train on one node with 8 GPUs:

```bash
$ torchrun --nproc_per_node 8 train.py --deepspeed ds.json
```
"""


def _project(project, readme: str = README):
    return project.write({
        "README.md": readme,
        "train.py": (EXAMPLE / "train.py").read_text(),
        "ds.json": (EXAMPLE / "ds_zero2_offload.json").read_text(),
    })


def test_a_readme_launch_line_links_to_its_script_and_reports_at_the_readme_line(project):
    findings = _project(project).check().findings
    starved = [f for f in findings if f.code == "DSL202"]
    assert [(f.path, f.span.start, f.span.end) for f in starved] == [("README.md", Location(12, 3), Location(12, 11))]
    assert starved[0].fix is None  # Markdown is never rewritten
    batch = [f for f in findings if f.code == "DSL610"]
    assert [(f.path, [(path, span.start.row) for path, span, _ in f.related]) for f in batch] == [
        ("ds.json", [("README.md", 12)])]  # 8 ranks: the world size comes from the README command


def test_fix_leaves_the_readme_as_it_is(project):
    _project(project).fix()
    assert project.read("README.md") == README


def test_without_the_readme_the_example_has_no_launch_finding(project):
    findings = _project(project, "# Fine-tune\n\nSee the docs.\n").check().findings
    assert [f.code for f in findings if f.code == "DSL202"] == []


def test_console_blocks_keep_only_the_prompted_lines_and_their_continuations():
    text = ("```console\n$ export OMP_NUM_THREADS=4\n$ deepspeed --num_gpus 2 train.py \\\n    --epochs 3\n"
            "[2026-01-01] deepspeed train.py started\n```\n")
    view, blocks = shell_view(text)
    assert len(view) == len(text) and view.count("\n") == text.count("\n")
    assert view.split("\n")[1:5] == ["  export OMP_NUM_THREADS=4", "  deepspeed --num_gpus 2 train.py \\",
                                     "    --epochs 3", " " * len("[2026-01-01] deepspeed train.py started")]
    command, = parse_launch_file(text, "README.md").commands
    assert (command.span.start, command.script, command.env["OMP_NUM_THREADS"].value) == (Location(3, 3), "train.py", "4")
    assert [a.value for a in command.script_args] == ["--epochs", "3"]
    assert len(blocks) == 1


def test_untagged_blocks_count_only_when_a_line_starts_a_launcher():
    text = ("```\nCUDA_VISIBLE_DEVICES=0,1 accelerate launch --num_processes 2 sft.py\n```\n\n"
            "```\nsome output mentioning torchrun\n```\n\n```python\nimport torch\nos.system('torchrun t.py')\n```\n")
    commands = parse_launch_file(text, "docs/training.md").commands
    assert [(c.span.start.row, c.launchers[0].kind, c.script) for c in commands] == [(2, "accelerate", "sft.py")]


def test_each_block_is_read_on_its_own():
    text = "```sh\nexport N=4\ntorchrun --nproc_per_node $N a.py --name 'x\n```\n\n```sh\ntorchrun --nproc_per_node $N b.py\n```\n"
    commands = parse_launch_file(text, "README.md").commands
    assert [(c.script, c.nproc_per_node) for c in commands] == [("a.py", 4), ("b.py", None)]


def test_positions_in_the_markdown_count_characters():
    text = "# Démarrage rapide ☕\n\n- Lancer :\n\n  ```bash\n  $ torchrun --nproc_per_node 4 t.py\n  ```\n"
    command, = parse_launch_file(text, "README.md").commands
    assert command.span.start == Location(6, 5)
    assert text[command.span.start_offset:command.span.start_offset + 8] == "torchrun"


def test_which_markdown_files_are_launch_files(tmp_path):
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs" / "guide" / "multi_node.md").write_text("```bash\ndeepspeed --hostfile h t.py\n```\n")
    (tmp_path / "docs" / "faq.md").write_text("Use torchrun.\n\n```bash\npip install x\n```\n")
    (tmp_path / "NOTES.md").write_text("```bash\ntorchrun t.py\n```\n")
    files, _ = discover([str(tmp_path)], Settings(), tmp_path)
    assert sorted((Path(f.path).relative_to(tmp_path).as_posix(), f.kind) for f in files) == [
        ("README.md", "launch"), ("docs/guide/multi_node.md", "launch")]
    assert is_markdown_launch_path("sub/Readme.md") and not is_markdown_launch_path("src/notes.md")
    assert not has_launch_block("no fences here, only torchrun in prose\n")
