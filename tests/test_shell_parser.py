"""Launch scripts read through tree-sitter-bash (sources/launch/bash.py): the shell constructs
real launch scripts use, with exact positions."""
from dslint.model import Location
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.bash import arith_value


def _launches(text: str) -> list[tuple[int, str, str]]:
    return [(c.span.start.row, c.launchers[-1].kind, c.script) for c in parse_launch_file(text).commands]


# -- heredocs ------------------------------------------------------------------------------

def test_a_heredoc_body_is_text_not_a_command():
    text = ("#!/bin/bash\nexport OMP_NUM_THREADS=1\nmkdir -p jobs\n"
            "cat > jobs/run.sbatch <<'JOB'\n#!/bin/bash\n#SBATCH --nodes=1\n"
            "srun torchrun --nproc_per_node=4 finetune.py\nJOB\n"
            "cat <<EOF > notes.txt\ndeepspeed --num_gpus 8 train.py\nEOF\n"
            "python prepare.py --procs 32\n")
    assert _launches(text) == [(12, "python", "prepare.py")]


def test_a_command_with_a_heredoc_ends_on_its_own_line():
    text = "torchrun --nproc_per_node 2 t.py <<EOF\n--lr 1\nEOF\n"
    command = parse_launch_file(text).commands[0]
    assert command.span.end == Location(1, 39)
    assert command.script_args == []


# -- functions -----------------------------------------------------------------------------

def test_a_function_body_is_read_where_the_function_is_called():
    text = ("start() {\n    exec env OMP_NUM_THREADS=1 torchrun --nproc_per_node=\"$NGPU\" train.py \"$@\"\n}\n"
            "NGPU=${NGPU:-4}\nstart --epochs 3\nstart --epochs 4\n")
    commands = parse_launch_file(text).commands
    assert len(commands) == 1  # once, at the first call
    assert commands[0].span.start == Location(2, 5)  # the position is the line in the body
    assert commands[0].nproc_per_node == 4
    assert commands[0].env["OMP_NUM_THREADS"].value == "1"


def test_a_function_that_is_never_called_still_holds_a_launch():
    text = "N=2\nrun_it() {\n  local port=29500\n  torchrun --nproc_per_node $N --master_port $port t.py\n}\n"
    command = parse_launch_file(text).commands[0]
    assert (command.nproc_per_node, command.master_port) == (2, 29500)


# -- if / case -----------------------------------------------------------------------------

P26 = """LAUNCHER=${1:-torchrun}
GPUS=${GPUS:-4}
case "$LAUNCHER" in
    torchrun)
        torchrun --standalone --nproc_per_node="$GPUS" train_mae.py --epochs 400 "$@"
        ;;
    deepspeed)
        deepspeed --num_gpus "$GPUS" train_mae.py --epochs 400 "$@"
        ;;
    *)
        echo "unknown launcher: $LAUNCHER" >&2
        exit 1
        ;;
esac
"""


def test_each_case_branch_is_a_candidate_launch_and_a_pattern_is_not_a_command():
    launch = parse_launch_file(P26)
    assert _launches(P26) == [(5, "torchrun", "train_mae.py"), (8, "deepspeed", "train_mae.py")]
    assert [c.nproc_per_node for c in launch.commands] == [4, 4]


def test_a_branch_starts_from_the_state_before_the_if():
    text = ("N=8\nif [ -n \"$SMALL\" ]; then\n  N=2\n  torchrun --nproc_per_node $N a.py\n"
            "else\n  torchrun --nproc_per_node $N b.py\nfi\ntorchrun --nproc_per_node $N c.py\n")
    commands = parse_launch_file(text).commands
    # (after the `if`, the launch is walked once per branch: N is 2 or 8, each a candidate launch)
    assert [(c.script, c.nproc_per_node) for c in commands] == [("a.py", 2), ("b.py", 8), ("c.py", 2), ("c.py", 8)]


def test_a_variable_every_branch_sets_alike_stays_known():
    text = "if x; then N=4; elif y; then N=4; else N=4; fi\ntorchrun --nproc_per_node $N t.py\n"
    assert parse_launch_file(text).commands[0].nproc_per_node == 4


def test_a_subshell_keeps_its_assignments():
    text = "N=8\n(N=2; cd sub)\ntorchrun --nproc_per_node $N t.py\n"
    assert parse_launch_file(text).commands[0].nproc_per_node == 8


# -- $(( )) --------------------------------------------------------------------------------

def test_arithmetic_with_known_operands_is_computed():
    text = "NGPU=4\nNNODES=2\nNP=$((NGPU * NNODES))\nHALF=$(( $NP / 3 ))\ntorchrun --nproc_per_node $HALF t.py\n"
    launch = parse_launch_file(text)
    assert launch.variables["NP"] == "8"
    assert launch.commands[0].nproc_per_node == 2


def test_arithmetic_with_an_unknown_operand_stays_unknown():
    assert parse_launch_file("torchrun --nproc_per_node $((NGPU * 2)) t.py\n").commands[0].nproc_per_node is None


def test_a_variable_the_loop_changes_is_unknown_inside_the_loop():
    text = ("i=0\nfor lr in 1e-4 3e-4; do\n    CUDA_VISIBLE_DEVICES=$((2 * i)),$((2 * i + 1)) \\\n"
            "        python train.py --lr \"$lr\" &\n    i=$((i + 1))\ndone\n")
    command = parse_launch_file(text).commands[0]
    assert command.env["CUDA_VISIBLE_DEVICES"].value is None
    assert command.script_args[1].value is None  # the loop variable


def test_arith_value():
    values = {"A": "7", "B": "-2", "S": "x"}.get
    assert arith_value("$((A / B))", values) == -3  # C division: toward zero
    assert arith_value("$((A % B))", values) == 1
    assert arith_value("$(( (A + 1) * 2 ** 3 ))", values) == 64
    assert arith_value("$((A / 0))", values) is None
    assert arith_value("$((S + 1))", values) is None
    assert arith_value("$((A > 1))", values) is None  # an operator it does not compute


# -- env, exec, continuations -----------------------------------------------------------------

def test_env_and_exec_in_front_of_a_launcher():
    text = "exec env -u CUDA_LAUNCH_BLOCKING OMP_NUM_THREADS=4 nohup deepspeed --num_gpus 2 t.py >log 2>&1\n"
    command = parse_launch_file(text).commands[0]
    assert command.launchers[0].kind == "deepspeed"
    assert command.env["OMP_NUM_THREADS"].value == "4"
    assert command.span.end_offset == text.index("\n")  # the redirections are part of the command


def test_line_continuations_keep_each_option_on_its_own_line():
    text = "torchrun \\\n    --nnodes 2 \\\n    --nproc_per_node 8 \\\n    t.py --x 1\n"
    command = parse_launch_file(text).commands[0]
    option = command.launchers[0].options["nproc_per_node"]
    assert option.value_span.start == Location(3, 22)
    assert command.script_span.start == Location(4, 5)
    assert [a.value for a in command.script_args] == ["--x", "1"]


def test_single_quoted_bash_c_runs_under_srun():
    text = "srun --ntasks-per-node=1 bash -c 'cd /w && torchrun --nproc_per_node 4 t.py'\n"
    inner = [c for c in parse_launch_file(text).commands if c.launchers[-1].kind == "torchrun"]
    assert [lc.kind for lc in inner[0].launchers] == ["srun", "torchrun"]
    assert inner[0].launchers[1].span.start == Location(1, 44)


# -- positions -----------------------------------------------------------------------------

def test_offsets_count_characters_after_non_ascii_text():
    text = "# Entraînement sur 8 GPU — café ☕ 🚀\nNAME=\"é\"\ntorchrun --nproc_per_node 8 t.py --tag \"ünï\" --n 2\n"
    command = parse_launch_file(text).commands[0]
    option = command.launchers[0].options["nproc_per_node"]
    assert text[option.value_span.start_offset:option.value_span.end_offset] == "8"
    assert option.value_span.start == Location(3, 27)
    assert command.span.start_offset == text.index("torchrun")
    tag = command.script_args[1]
    assert (tag.value, text[tag.span.start_offset:tag.span.end_offset]) == ("ünï", '"ünï"')
    assert command.span.end_offset == len(text) - 1


# -- syntax errors -------------------------------------------------------------------------

def test_a_syntax_error_region_is_skipped_and_the_rest_still_parses():
    text = ("torchrun --nproc_per_node 2 a.py\nif then fi ((( ]]\n"
            "torchrun --nproc_per_node 4 b.py\n")
    assert [(c.script, c.nproc_per_node) for c in parse_launch_file(text).commands] == [("a.py", 2), ("b.py", 4)]


def test_an_unclosed_block_does_not_hide_the_launch_after_it():
    text = "for x in 1 2; do\n  echo $x\ndone )\ndeepspeed --num_gpus 2 t.py\n"
    assert _launches(text) == [(4, "deepspeed", "t.py")]


def test_variables_set_by_arithmetic_commands_and_builtins_are_unknown():
    text = ("i=0\nfor x in a b; do\n  CUDA_VISIBLE_DEVICES=$i torchrun --nproc_per_node 1 t.py &\n  ((i++))\ndone\n"
            "N=2\nread -r N\ntorchrun --nproc_per_node $N u.py\nM=3\n(( M == 3 ))\nunset P\n"
            "torchrun --nproc_per_node $M --master_port ${P:-29501} v.py\n")
    first, second, third = parse_launch_file(text).commands
    assert first.env["CUDA_VISIBLE_DEVICES"].value is None  # not 0: `((i++))` changes it every iteration
    assert second.nproc_per_node is None
    assert third.nproc_per_node == 3  # a comparison assigns nothing
    assert third.launchers[0].options["master_port"].value == "29501"
