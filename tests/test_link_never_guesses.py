"""facts/link.py: a launch names its script and config by path, from its working directory; never by a
same-named file elsewhere (issue 11, "Linking that never guesses")."""
from __future__ import annotations

from dslint.facts.link import describe_setups, launched_script_paths, link_setups

DS_SCRIPT = ("import argparse, deepspeed\np = argparse.ArgumentParser()\np = deepspeed.add_config_arguments(p)\n"
             "args = p.parse_args()\nengine, *_ = deepspeed.initialize(args=args, model=None)\n")


def _launched(result) -> list:
    return sorted((s.script_path, s.launch_path) for s in link_setups(result.project) if s.command is not None)


def test_a_missing_tasks_main_is_not_linked_to_tools_retro_main(project):
    project.write({
        "examples/run_task.sh": "torchrun --nproc_per_node 8 tasks/main.py --task RACE\n",
        "tools/retro/main.py": DS_SCRIPT,
    })
    result = project.check()
    assert _launched(result) == []
    assert launched_script_paths(result.project) == set()
    text = describe_setups(result.project)
    assert "examples/run_task.sh:1  'tasks/main.py' is not found relative to examples, ." in text


def test_run_glue_in_moq_is_not_linked_to_another_folders_run_glue(project):
    project.write({
        "training/MoQ/run.sh": "deepspeed --num_gpus 4 run_glue.py --deepspeed_config ds.json\n",
        "training/MoQ/ds.json": '{"train_batch_size": 16, "zero_optimization": {"stage": 2}}',
        "training/BingBertGlue/run_glue.py": DS_SCRIPT,
    })
    result = project.check()
    assert _launched(result) == []
    assert "'run_glue.py' is not found relative to training/MoQ, training, ." in describe_setups(result.project)


def test_a_launch_after_cd_links_the_script_and_config_of_that_folder(project):
    project.write({
        "run_moq.sh": "#!/bin/bash\ncd training/MoQ\ndeepspeed --num_gpus 4 run_glue.py --deepspeed_config ds.json\n",
        "training/MoQ/run_glue.py": DS_SCRIPT,
        "training/MoQ/ds.json": '{"train_batch_size": 16, "zero_optimization": {"stage": 2}}',
        "training/BingBertGlue/run_glue.py": DS_SCRIPT,
        "ds.json": '{"train_batch_size": 64, "zero_optimization": {"stage": 3}}',
    })
    result = project.check()
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert (setup.script_path, setup.launch_path) == ("training/MoQ/run_glue.py", "run_moq.sh")
    assert setup.config.path == "training/MoQ/ds.json" and setup.world_size == 4
    assert setup.command.cwd.value == "training/MoQ" and setup.command.cwd.span.start.row == 2


def test_a_cd_inside_an_if_leaves_the_folder_unknown_and_nothing_is_guessed(project):
    project.write({
        "run.sh": "if [ -n \"$MOQ\" ]; then\n  cd training/MoQ\nfi\ndeepspeed run_glue.py\n",
        "training/MoQ/run_glue.py": DS_SCRIPT,
    })
    result = project.check()
    [command] = result.project.launches["run.sh"].commands
    assert command.cwd is not None and command.cwd.value is None
    assert _launched(result) == []  # not at . (the folders an unknown cd leaves), and not by its name


def test_a_path_relative_to_the_repository_root_links(project):
    project.write({
        "scripts/pretrain.sh": "deepspeed --num_gpus 2 examples/train.py --deepspeed_config configs/ds.json\n",
        "examples/train.py": DS_SCRIPT,
        "configs/ds.json": '{"train_batch_size": 8, "zero_optimization": {"stage": 1}}',
    })
    result = project.check()
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert (setup.script_path, setup.config.path, setup.world_size) == ("examples/train.py", "configs/ds.json", 2)


def test_a_path_found_from_two_folders_as_two_files_is_ambiguous(project):
    project.write({
        "scripts/run.sh": "deepspeed train.py\n",
        "scripts/train.py": DS_SCRIPT,
        "train.py": DS_SCRIPT,
    })
    result = project.check()
    assert _launched(result) == []
    assert "'train.py' is ambiguous: scripts/train.py, train.py" in describe_setups(result.project)


def test_a_launched_script_the_prefilter_skipped_is_linked_and_read(project):
    project.write({
        "examples/run_race.sh": "torchrun --nproc_per_node 8 tasks/main.py --task RACE\n",
        # No framework word in the entry script: the prefilter alone would leave it unread.
        "tasks/main.py": "from tasks.race import finetune\n\n\nif __name__ == '__main__':\n    finetune()\n",
        "tasks/__init__.py": "",
        "tasks/race.py": "import torch.distributed as dist\n\n\ndef finetune():\n    dist.init_process_group('nccl')\n",
        "tools/retro/main.py": DS_SCRIPT,
    })
    result = project.check()
    assert _launched(result) == [("tasks/main.py", "examples/run_race.sh")]
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert setup.world_size == 8 and setup.spawner == "launcher"
    summary = result.project.scripts["tasks/main.py"]
    assert [ref.module for ref in summary.module.imports] == ["tasks.race"]


def test_the_shell_model_follows_cd_through_subshells_and_make_recipes():
    from dslint.sources.launch import parse_launch_file

    script = "cd a\ncd ../b\npython x.py\n(cd sub && python y.py)\npython z.py\npushd c\npopd\npython w.py\n"
    assert [(c.script, c.cwd and c.cwd.value) for c in parse_launch_file(script).commands] == [
        ("x.py", "b"), ("y.py", "b/sub"), ("z.py", "b"), ("w.py", None)]
    make = "train:\n\tcd exp && deepspeed train.py\n\tpython eval.py\n"
    assert [(c.script, c.cwd and c.cwd.value) for c in parse_launch_file(make, "Makefile").commands] == [
        ("train.py", "exp"), ("eval.py", None)]  # each recipe line runs in a shell of its own


def test_a_launch_run_from_a_folder_above_its_own_links_by_path_from_there(project):
    # DeepSpeedExamples' compression/bert: `bash bash_script/ZeroQuant/zero_quant_lkd.sh`, run from compression/bert.
    project.write({
        "compression/bert/bash_script/ZeroQuant/zero_quant_lkd.sh":
            "python -m torch.distributed.launch --nproc_per_node=1 run_glue_lkd.py --deepspeed_config config/ds.json\n",
        "compression/bert/run_glue_lkd.py": DS_SCRIPT,
        "compression/bert/config/ds.json": '{"train_batch_size": 8, "zero_optimization": {"stage": 1}}',
        "compression/gpt2/run_glue_lkd.py": DS_SCRIPT,  # same name, not on the way up: never a candidate
    })
    result = project.check()
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert (setup.script_path, setup.config.path, setup.world_size) == (
        "compression/bert/run_glue_lkd.py", "compression/bert/config/ds.json", 1)
