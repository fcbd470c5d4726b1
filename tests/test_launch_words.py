"""Launch-line words as bash makes them: `${X:-default}` with quote removal, empty expansions that
vanish, unreadable expansions among a launcher's options, `$PWD` in PYTHONPATH, src/ layouts, and
README launch lines in CommonMark indented code blocks."""
from __future__ import annotations

from pathlib import Path

from dslint import engine
from dslint.facts.link import link_setups
from dslint.settings import Settings
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.markdown import has_launch_block, shell_view


def _one(text: str):
    [command] = parse_launch_file(text).commands
    return command


def _setups(root: Path, files: dict):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    settings = Settings.model_validate({})
    sources, _ = engine.discover([str(root)], settings, root)
    project = engine.build_project(root, engine.check_files(sources, settings))
    return link_setups(project, settings)


def _launched(setups, root: Path) -> list[str]:
    return [Path(s.script_path).relative_to(root).as_posix() for s in setups if s.launch_path]


# -- defaults: quote removal, empty words ----------------------------------------------------

def test_a_quoted_default_loses_its_quotes():
    cmd = _one('EXTRA=${EXTRA:-""}\nLR=${LR:-"3e-4"}\nsrun -N 2 ${EXTRA} python train.py --lr $LR --tag ${TAG:-\'a b\'}\n')
    assert [lc.kind for lc in cmd.launchers] == ["srun", "python"]
    assert cmd.script == "train.py"
    assert [a.value for a in cmd.script_args] == ["--lr", "3e-4", "--tag", "a", "b"]
    assert cmd.srun.nodes == 2  # the empty default is no word: srun's options are what the line shows


def test_an_empty_default_is_no_option_but_stays_open_among_script_arguments():
    cmd = _one('torchrun --nproc_per_node 4 ${TORCHRUN_ARGS:-} train.py ${TRAIN_ARGS:-}\n')
    assert cmd.script == "train.py" and cmd.nproc_per_node == 4
    [extra] = cmd.script_args
    assert extra.value is None and extra.empty_default  # the caller may pass the script options here


def test_a_default_that_expands_reads_the_variable():
    cmd = _one('N=4\ntorchrun --nproc_per_node ${GPUS:-$N} train.py\n')
    assert cmd.nproc_per_node == 4


def test_an_empty_unquoted_variable_vanishes_and_a_quoted_one_stays_a_word():
    cmd = _one('A=""\npython train.py $A "$A" x\n')
    assert [a.value for a in cmd.script_args] == ["", "x"]


# -- unreadable words among a launcher's options ---------------------------------------------------

def test_srun_options_from_an_unknown_variable_keep_the_line_but_not_the_counts():
    cmd = _one('#!/bin/bash\nsrun --nodes=2 --ntasks-per-node=8 $SRUN_ARGS python -u train.py --deepspeed ds.json\n')
    assert [lc.kind for lc in cmd.launchers] == ["srun", "python"]
    assert cmd.script == "train.py" and cmd.deepspeed_config_arg == "ds.json"
    srun = cmd.launchers[0]
    assert srun.may_have_more_options
    assert cmd.srun.nodes is None and cmd.srun.ntasks_per_node is None and cmd.world_size is None


def test_an_option_given_after_the_unknown_words_is_kept():
    cmd = _one('torchrun $DIST_ARGS --nproc_per_node=2 --nnodes 1 train.py\n')
    assert cmd.script == "train.py"
    assert cmd.nproc_per_node == 2 and cmd.nnodes == 1 and cmd.world_size == 2
    assert cmd.master_port is None


def test_torchrun_options_before_unknown_words_may_be_reset():
    cmd = _one('torchrun --nproc_per_node=2 $DIST_ARGS train.py\n')
    assert cmd.script == "train.py"
    assert cmd.nproc_per_node is None and "DIST_ARGS" in cmd.reasons["nproc_per_node"]


def test_deepspeed_resources_behind_unknown_words_are_unknown():
    cmd = _one('deepspeed $(cat hosts_args) train.py --deepspeed_config ds.json\n')
    assert cmd.script == "train.py" and cmd.world_size is None and cmd.num_gpus is None


def test_an_unknown_word_with_no_program_after_it_is_still_the_program():
    cmd = _one('torchrun --nproc_per_node 2 $SCRIPT --lr 1\n')
    assert cmd.script is None  # `$SCRIPT` may be the script itself: not taken for options
    assert cmd.nproc_per_node == 2


def test_unknown_words_before_options_the_launcher_lacks_stay_the_program():
    cmd = _one('torchrun $SCRIPT --config a.py\n')
    assert cmd.script is None  # `--config` is no torchrun option: `$SCRIPT` is the script, a.py its argument
    cmd = _one('srun $SRUN_ARGS --gpus-per-node=8 python train.py\n')
    assert cmd.script == "train.py" and cmd.srun.gpus_per_node == 8


def test_python_flags_from_a_variable_before_the_script():
    cmd = _one('python $PYFLAGS train.py --x 1\n')
    assert cmd.script == "train.py" and [a.value for a in cmd.script_args] == ["--x", "1"]


def test_mpirun_options_from_a_variable():
    cmd = _one('mpirun -np 4 $MPI_OPTS python train.py\n')
    assert cmd.script == "train.py" and cmd.mpirun.np is None


# -- $PWD in PYTHONPATH, src/ layouts ----------------------------------------------------------

_FABRIC = "import lightning as L\nfabric = L.Fabric(devices=2)\nfabric.launch()\n"


def test_pwd_in_pythonpath_is_the_folder_the_line_runs_in(tmp_path):
    for spelling in ("$PWD/lib", "${PWD}/lib:$PYTHONPATH", "$(pwd)/lib"):
        root = tmp_path / str(abs(hash(spelling)))
        setups = _setups(root, {"run.sh": f"export PYTHONPATH={spelling}\nsrun python -m app.entry\n",
                                "lib/app/__init__.py": "", "lib/app/entry.py": _FABRIC})
        assert _launched(setups, root) == ["lib/app/entry.py"], spelling


def test_pwd_after_a_cd_is_not_taken_for_the_launch_folder():
    [command] = parse_launch_file("cd $WORK\nexport PYTHONPATH=$PWD/lib\npython -m app.entry\n").commands
    assert command.env["PYTHONPATH"].in_launch_dir is None


def test_a_src_layout_package_is_found_under_src(tmp_path):
    setups = _setups(tmp_path, {"run.sh": "python -m app.entry\n", "src/app/__init__.py": "",
                                "src/app/entry.py": _FABRIC})
    assert _launched(setups, tmp_path) == ["src/app/entry.py"]


def test_a_package_beside_the_launch_wins_over_src(tmp_path):
    setups = _setups(tmp_path, {"run.sh": "python -m app.entry\n", "app/__init__.py": "", "app/entry.py": _FABRIC,
                                "src/app/__init__.py": "", "src/app/entry.py": _FABRIC})
    assert _launched(setups, tmp_path) == ["app/entry.py"]


# -- README indented code blocks -----------------------------------------------------------------

def test_an_indented_block_after_a_blank_line_is_read():
    text = "# Train\n\nOn one node:\n\n    torchrun --nproc_per_node 4 train.py\n\nDone.\n"
    view, blocks = shell_view(text)
    assert len(blocks) == 1 and has_launch_block(text)
    [command] = parse_launch_file(text, "README.md").commands
    assert command.script == "train.py" and command.nproc_per_node == 4
    assert (command.span.start.row, command.span.start.column) == (5, 5)


def test_an_indented_block_right_after_a_heading_is_read():
    text = "## Run\n    deepspeed --num_gpus 2 train.py\n"
    assert [c.script for c in parse_launch_file(text, "README.md").commands] == ["train.py"]


def test_indented_text_that_is_no_code_block_is_not_read():
    paragraph = "Run it with\n    torchrun --nproc_per_node 4 train.py\n"  # a paragraph's continuation line
    in_list = "1. Train:\n\n    torchrun --nproc_per_node 4 train.py\n"  # the list item's own paragraph
    other = "Setup:\n\n    pip install -r requirements.txt\n    torchrun --nproc_per_node 4 train.py\n"
    for text in (paragraph, in_list, other):
        assert parse_launch_file(text, "README.md").commands == [], text


def test_fenced_blocks_hold_indented_lines_of_their_own():
    text = "Text\n\n```bash\n    torchrun --nproc_per_node 2 a.py\n```\n"
    assert [c.script for c in parse_launch_file(text, "README.md").commands] == ["a.py"]


def test_a_function_argument_default_loses_its_quotes():
    cmd = _one('run() {\n  torchrun --nproc_per_node ${1:-"2"} train.py ${2:-\'--a b\'}\n}\nrun "" ""\n')
    assert cmd.nproc_per_node == 2
    assert [a.value for a in cmd.script_args] == ["--a", "b"]
