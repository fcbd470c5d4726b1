"""A DeepSpeed config a launch script writes itself with a heredoc just before the launch line."""
from __future__ import annotations

from dslint.sources.launch.parse import UNKNOWN, parse_launch_file

TRAIN = ("import argparse\nimport deepspeed\nimport torch\n"
         "p = argparse.ArgumentParser()\n"
         "p.add_argument('--local_rank', type=int, default=-1)\n"
         "p = deepspeed.add_config_arguments(p)\n"
         "args = p.parse_args()\n"
         "model = torch.nn.Linear(8, 8)\n"
         "engine, opt, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())\n")

CONFIG = """{
  "train_batch_size": 64,
  "train_micro_batch_size_per_gpu": MICRO,
  "gradient_accumulation_steps": 2,
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
  "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}
}
"""
LAUNCH = "deepspeed --num_gpus 8 train.py --deepspeed_config $config_json\n"


def run_sh(writer: str, micro: str = "8", before: str = "", launch_first: bool = False) -> str:
    heredoc = writer + "\n" + CONFIG.replace("MICRO", micro) + "EOT\n"
    body = (LAUNCH + heredoc) if launch_first else (heredoc + LAUNCH)
    return "#!/bin/bash\n" + before + 'config_json="./ds_config.json"\n' + body


def found(project, codes=("DSL610", "DSL201")):
    return sorted((f.path, f.code, f.span.start.row) for f in project.check(select=list(codes)).findings)


def test_the_config_a_heredoc_writes_is_checked_at_its_keys_in_the_launch_file(project):
    project.write({"train.py": TRAIN, "run.sh": run_sh("cat <<EOT > $config_json")})
    assert found(project) == [("run.sh", "DSL201", 12), ("run.sh", "DSL610", 5)]


def test_every_spelling_of_a_heredoc_write_is_read(project):
    for writer in ("cat > $config_json <<EOT", "cat <<-EOT >$config_json", "tee $config_json <<EOT >/dev/null",
                   "cat <<'EOT' > $config_json"):
        project.write({"train.py": TRAIN, "run.sh": run_sh(writer)})
        assert found(project, ("DSL610",)) == [("run.sh", "DSL610", 5)], writer


def test_a_variable_of_the_body_expands_from_an_assignment_above(project):
    writer = "cat <<EOT > $config_json"
    project.write({"train.py": TRAIN, "run.sh": run_sh(writer, micro="$MICRO", before="MICRO=2\n")})
    assert found(project, ("DSL610",)) == [("run.sh", "DSL610", 6)]  # 64 != 2 x 2 x 8
    project.write({"run.sh": run_sh(writer, micro="${MICRO}", before="MICRO=4\n")})
    assert found(project, ("DSL610",)) == []  # 64 == 4 x 2 x 8


def test_a_variable_the_file_does_not_show_leaves_that_value_unknown(project):
    project.write({"train.py": TRAIN, "run.sh": run_sh("cat <<EOT > $config_json", micro="$MICRO")})
    assert found(project, ("DSL610",)) == []  # micro x 2 x 8 may be 64
    assert found(project, ("DSL201",)) == [("run.sh", "DSL201", 12)]  # the offload is written as it stands


def test_a_quoted_delimiter_keeps_the_dollar_literal_and_an_invalid_body_is_a_note(project):
    project.write({"train.py": TRAIN,
                   "run.sh": run_sh("cat <<'EOT' > $config_json", micro="$MICRO", before="MICRO=4\n")})
    result = project.check(select=["DSL610", "DSL201"])
    assert not result.internal_error
    assert [f for f in result.findings if f.path == "run.sh" and f.code == "DSL610"] == []
    launch = parse_launch_file(project.read("run.sh"), "run.sh")
    assert '"train_micro_batch_size_per_gpu": $MICRO' in launch.heredocs[0].body and launch.heredocs[0].quoted


def test_an_invalid_json_body_gives_no_traceback_and_no_finding(project):
    project.write({"train.py": TRAIN,
                   "run.sh": run_sh("cat <<EOT > $config_json").replace('"optimizer"', '"optimizer" 1,'),
                   "ds_config.json": CONFIG.replace("MICRO", "8")})
    result = project.check(select=["DSL610", "DSL201"])
    assert not result.internal_error
    # the file on disk is not what the job reads: the heredoc overwrites it just before the launch
    assert [f for f in result.findings if f.code == "DSL610"] == []


def test_a_heredoc_after_the_launch_line_is_not_its_config(project):
    project.write({"train.py": TRAIN, "run.sh": run_sh("cat <<EOT > $config_json", launch_first=True)})
    assert [f for f in found(project, ("DSL610",)) if f[0] == "run.sh"] == []
    launch = parse_launch_file(project.read("run.sh"), "run.sh")
    assert launch.commands[0].heredocs == {} and len(launch.heredocs) == 1


def test_an_append_is_no_write_of_the_whole_file(project):
    project.write({"train.py": TRAIN, "run.sh": run_sh("cat <<EOT >> $config_json")})
    assert found(project, ("DSL610",)) == []
    assert parse_launch_file(project.read("run.sh"), "run.sh").heredocs == []
    # a file on disk is then the config, as before
    project.write({"ds_config.json": CONFIG.replace("MICRO", "8")})
    assert found(project, ("DSL610",)) == [("ds_config.json", "DSL610", 2)]


def test_the_heredoc_is_preferred_to_a_file_of_the_same_path(project):
    project.write({"train.py": TRAIN, "run.sh": run_sh("cat <<EOT > $config_json"),
                   "ds_config.json": CONFIG.replace("MICRO", "4")})  # (64 == 4 x 2 x 8: right as it stands)
    assert found(project, ("DSL610",)) == [("run.sh", "DSL610", 5)]


def test_a_heredoc_in_one_branch_only_leaves_the_config_unknown(project):
    script = run_sh("cat <<EOT > $config_json").replace("cat <<EOT", "if [ -n \"$X\" ]; then\ncat <<EOT").replace(
        "EOT\ndeepspeed", "EOT\nfi\ndeepspeed")
    project.write({"train.py": TRAIN, "run.sh": script})
    assert found(project, ("DSL610",)) == []
    command = parse_launch_file(script, "run.sh").commands[0]
    assert [write.body for write in command.heredocs.values()] == [None]


def test_the_body_expands_as_the_shell_does():
    text = ('A=1\nB=two\ncat > out.json <<EOF\n{"a": $A, "b": "${B}", "c": "\\$A", "d": $((A + 1)), '
            '"e": "$(date)", "f": $UNSET}\nEOF\n')
    write = parse_launch_file(text, "run.sh").heredocs[0]
    assert write.body == '{"a": 1, "b": "two", "c": "$A", "d": 2, "e": "%s", "f": %s}\n' % (UNKNOWN, UNKNOWN)
    assert (write.path, write.quoted, write.body_span.start.row) == ("out.json", False, 4)


def test_a_heredoc_path_and_a_launch_path_compare_from_the_folder_each_runs_in():
    text = ('cat <<EOF > conf/ds.json\n{"a": 1}\nEOF\ncd conf\n'
            'deepspeed train.py --deepspeed_config ds.json\n'
            'deepspeed train.py --deepspeed_config conf/ds.json\n')
    first, second = parse_launch_file(text, "run.sh").commands
    from dslint.sources.launch.model import heredoc_key

    assert heredoc_key(first.cwd, first.deepspeed_config_arg) in first.heredocs
    assert heredoc_key(second.cwd, second.deepspeed_config_arg) not in second.heredocs  # conf/conf/ds.json


def test_only_stdout_redirections_receive_the_body():
    text = 'cat <<A > y.json 2>err.log\n{"b": 2}\nA\ncat <<A 1>z.json >/dev/null\n{}\nA\n'
    assert [(w.path, w.body) for w in parse_launch_file(text, "run.sh").heredocs] == [
        ("y.json", '{"b": 2}\n'), ("z.json", "{}\n")]
