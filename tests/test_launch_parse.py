"""Launch commands in shell scripts, sbatch files and Makefiles: parsed facts and exact positions."""
from __future__ import annotations

import pickle

from dslint.model import Location
from dslint.sources.launch import is_launch_file, parse_launch_file


def col(text: str, row: int, needle: str, nth: int = 0) -> int:
    """1-based column of the nth occurrence of needle on a 1-based row."""
    line = text.split("\n")[row - 1]
    at = -1
    for _ in range(nth + 1):
        at = line.index(needle, at + 1)
    return at + 1


# -- DeepSpeedExamples shapes --------------------------------------------------------------

DS_CHAT_STEP1 = """\
#!/bin/bash
# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
OUTPUT=$1
ZERO_STAGE=$2
if [ "$OUTPUT" == "" ]; then
    OUTPUT=./output
fi
if [ "$ZERO_STAGE" == "" ]; then
    ZERO_STAGE=2
fi
mkdir -p $OUTPUT

deepspeed main.py \\
   --data_path Dahoas/rm-static Dahoas/full-hh-rlhf \\
   --data_split 2,4,4 \\
   --model_name_or_path facebook/opt-1.3b \\
   --per_device_train_batch_size 8 \\
   --zero_stage $ZERO_STAGE \\
   --deepspeed \\
   --output_dir $OUTPUT \\
   &> $OUTPUT/training.log
"""


def test_deepspeed_chat_script_without_resource_flags():
    launch = parse_launch_file(DS_CHAT_STEP1)
    assert len(launch.commands) == 1
    cmd = launch.commands[0]
    assert [lc.kind for lc in cmd.launchers] == ["deepspeed"]
    assert cmd.launchers[0].span.start == Location(16, 1)
    assert cmd.launchers[0].span.end == Location(16, 10)
    assert cmd.script == "main.py"
    assert cmd.script_span.start == Location(16, 11)
    # the whole logical command, continuations included, up to the redirection target
    assert cmd.span.start == Location(16, 1)
    assert cmd.span.end == Location(24, 27)
    assert [a.value for a in cmd.script_args[:4]] == ["--data_path", "Dahoas/rm-static", "Dahoas/full-hh-rlhf",
                                                     "--data_split"]
    # $ZERO_STAGE was set only inside an `if`: unknown afterwards; $OUTPUT likewise
    zero = next(a for a in cmd.script_args if a.raw == "$ZERO_STAGE")
    assert zero.value is None
    assert zero.span.start == Location(21, 17)
    # DeepSpeed's own `--deepspeed` is a flag: no config path follows it
    assert cmd.deepspeed_config_arg is None
    assert cmd.num_gpus is None
    assert cmd.nproc_per_node is None
    assert cmd.nnodes == 1
    assert cmd.world_size is None
    assert cmd.reasons["num_gpus"] == "deepspeed starts one process per visible GPU on each host"
    assert cmd.bind_cores_to_rank is False
    assert cmd.omp_num_threads_set is False
    assert launch.variables == {}


DS_BERT = """\
#!/bin/bash
base_dir=`pwd`
JOB_NAME=lamb_nvidia_data_64k_seq128
OUTPUT_DIR=${base_dir}/bert_model_nvidia_data_outputs
mkdir -p $OUTPUT_DIR

NCCL_TREE_THRESHOLD=0 deepspeed --num_gpus 8 --num_nodes 2 --master_port=29600 --bind_cores_to_rank ${base_dir}/../../deepspeed_train.py \\
--cf ${base_dir}/bert_large.json \\
--max_seq_length 128 \\
--output_dir $OUTPUT_DIR \\
--deepspeed \\
--deepspeed_config ${base_dir}/deepspeed_bsz64k_lamb_config_seq128.json \\
--job_name $JOB_NAME
"""


def test_deepspeed_bert_pretraining_launch():
    launch = parse_launch_file(DS_BERT)
    cmd = launch.commands[0]
    ds = cmd.launcher("deepspeed")
    assert ds.span.start == Location(7, col(DS_BERT, 7, "deepspeed"))
    assert ds.options["num_gpus"].value == "8"
    assert ds.options["num_gpus"].name_span.start == Location(7, 33)
    assert ds.options["num_gpus"].span.end == Location(7, 45)
    assert ds.options["master_port"].value == "29600"
    assert ds.options["master_port"].value_span.start == Location(7, col(DS_BERT, 7, "29600"))
    assert cmd.num_gpus == 8
    assert cmd.nnodes == 2
    assert cmd.nproc_per_node == 8
    assert cmd.world_size == 16
    assert cmd.master_port == 29600
    assert cmd.bind_cores_to_rank is True
    assert cmd.env["NCCL_TREE_THRESHOLD"].value == "0"
    assert cmd.env["NCCL_TREE_THRESHOLD"].source == "inline"
    assert cmd.env["JOB_NAME"].source == "assign"
    # `pwd` in backticks is not a literal, so neither is anything built from it
    assert cmd.script is None
    assert cmd.script_span.start == Location(7, col(DS_BERT, 7, "${base_dir}"))
    assert cmd.deepspeed_config_arg is None
    assert cmd.deepspeed_config_arg_span.start == Location(12, 20)
    assert [a.value for a in cmd.script_args][-2:] == ["--job_name", "lamb_nvidia_data_64k_seq128"]
    assert launch.variables == {"JOB_NAME": "lamb_nvidia_data_64k_seq128"}
    assert cmd.reasons["omp_num_threads_by_launcher"].startswith("deepspeed --bind_cores_to_rank")


def test_deepspeed_include_counts_slots_and_hf_deepspeed_config_path():
    text = "deepspeed --include localhost:0,2 --master_port 29501 run_clm.py --deepspeed ds_z3.json --bf16\n"
    cmd = parse_launch_file(text).commands[0]
    assert cmd.num_gpus == 2
    assert cmd.nnodes == 1
    assert cmd.world_size == 2
    assert cmd.deepspeed_config_arg == "ds_z3.json"
    assert cmd.deepspeed_config_arg_span.start == Location(1, col(text, 1, "ds_z3.json"))
    multi = parse_launch_file("deepspeed -i 'w0:0,1@w1:0,1' t.py\n").commands[0]
    assert (multi.nnodes, multi.num_gpus, multi.world_size) == (2, 2, 4)
    whole = parse_launch_file("deepspeed --include w0@w1 t.py\n").commands[0]
    assert whole.num_gpus is None and whole.nnodes == 2


def test_deepspeed_uses_cuda_visible_devices_when_no_resource_flags():
    cmd = parse_launch_file("CUDA_VISIBLE_DEVICES=0,1,2 deepspeed train.py --deepspeed_config=ds.json\n").commands[0]
    assert cmd.num_gpus == 3
    assert cmd.world_size == 3
    assert cmd.deepspeed_config_arg == "ds.json"
    assert cmd.deepspeed_config_arg_span.start == Location(1, 66)
    assert cmd.deepspeed_config_arg_span.end == Location(1, 73)


def test_deepspeed_module_and_num_accelerators_alias():
    cmd = parse_launch_file("deepspeed --num_accelerators=4 --module pkg.train --epochs 3\n").commands[0]
    assert cmd.num_gpus == 4
    assert cmd.module == "pkg.train"
    assert cmd.script is None
    assert [a.value for a in cmd.script_args] == ["--epochs", "3"]


# -- torchrun ------------------------------------------------------------------------------

def test_torchrun_both_spellings_and_positions():
    text = "torchrun --standalone --nproc-per-node=4 train.py --batch 32\n"
    cmd = parse_launch_file(text).commands[0]
    tr = cmd.launchers[0]
    assert tr.kind == "torchrun"
    assert tr.span.start == Location(1, 1) and tr.span.end == Location(1, 9)
    opt = tr.options["nproc_per_node"]
    assert opt.name == "--nproc-per-node"
    assert opt.name_span.start == Location(1, 23) and opt.name_span.end == Location(1, 39)
    assert opt.value_span.start == Location(1, 40) and opt.value_span.end == Location(1, 41)
    assert "standalone" in tr.options and tr.options["standalone"].is_flag
    assert cmd.nproc_per_node == 4
    assert cmd.nnodes == 1
    assert cmd.world_size == 4
    assert cmd.script == "train.py"
    assert cmd.script_span.start == Location(1, 42)
    assert [(a.value, a.span.start.column) for a in cmd.script_args] == [("--batch", 51), ("32", 59)]
    # torch/distributed/run.py: OMP_NUM_THREADS=1 when unset and nproc_per_node > 1
    assert cmd.omp_num_threads_set is False
    assert cmd.omp_num_threads_by_launcher == "1"


def test_torchrun_nproc_gpu_is_unknown_with_reason_and_elastic_nnodes():
    cmd = parse_launch_file("torchrun --nnodes=1:4 --nproc_per_node gpu --rdzv_backend c10d t.py\n").commands[0]
    assert cmd.nproc_per_node is None
    assert cmd.reasons["nproc_per_node"] == "--nproc_per_node=gpu: one process per visible device, not known statically"
    assert cmd.nnodes is None
    assert cmd.nnodes_range == (1, 4)
    assert cmd.reasons["nnodes"] == "elastic: between 1 and 4 nodes"
    assert cmd.world_size is None


def test_torchrun_defaults_to_one_process_and_abbreviations():
    one = parse_launch_file("torchrun train.py\n").commands[0]
    assert (one.nproc_per_node, one.nnodes, one.world_size) == (1, 1, 1)
    assert one.omp_num_threads_by_launcher is None
    abbreviated = parse_launch_file("torchrun --nproc 2 train.py\n").commands[0]  # argparse allow_abbrev
    assert abbreviated.nproc_per_node == 2


def test_omp_set_inline_keeps_launcher_default_out():
    cmd = parse_launch_file("OMP_NUM_THREADS=16 torchrun --nproc_per_node 2 t.py\n").commands[0]
    assert cmd.omp_num_threads == "16" and cmd.omp_num_threads_set is True
    assert cmd.omp_num_threads_by_launcher is None
    computed = parse_launch_file("OMP_NUM_THREADS=$(( $(nproc) / 4 )) torchrun --nproc_per_node 4 t.py\n").commands[0]
    assert computed.omp_num_threads is None and computed.omp_num_threads_set is True
    assert computed.env["OMP_NUM_THREADS"].source == "inline"
    via_env = parse_launch_file("env OMP_NUM_THREADS=8 torchrun --nproc_per_node 4 t.py\n").commands[0]
    assert via_env.omp_num_threads == "8"


def test_python_m_torch_distributed_run_and_launch():
    text = "python -m torch.distributed.run --nproc_per_node=8 --master_port=$PORT main.py\n"
    cmd = parse_launch_file(text).commands[0]
    assert [lc.kind for lc in cmd.launchers] == ["torchrun"]
    assert cmd.launchers[0].word == "python -m torch.distributed.run"
    assert cmd.launchers[0].span.end == Location(1, 32)
    assert cmd.nproc_per_node == 8
    assert cmd.master_port is None
    assert cmd.launchers[0].options["master_port"].raw_value == "$PORT"
    old = parse_launch_file("python3 -u -m torch.distributed.launch --nproc_per_node=2 --use_env t.py\n").commands[0]
    assert old.launchers[0].kind == "torch.distributed.launch"
    assert old.launchers[0].options["use_env"].is_flag
    assert old.nproc_per_node == 2 and old.script == "t.py"


def test_torchrun_args_from_a_variable_split_into_words():
    text = """\
GPUS_PER_NODE=8
DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES --node_rank $NODE_RANK"
torchrun $DISTRIBUTED_ARGS pretrain_gpt.py --tensor-model-parallel-size 2
"""
    cmd = parse_launch_file(text).commands[0]
    tr = cmd.launchers[0]
    assert tr.options["nproc_per_node"].value == "8"
    assert tr.options["nproc_per_node"].span.start == Location(3, 10)  # points at $DISTRIBUTED_ARGS
    assert tr.options["nnodes"].value is None
    assert cmd.nproc_per_node == 8
    assert cmd.nnodes is None
    assert cmd.script == "pretrain_gpt.py"
    assert cmd.omp_num_threads_by_launcher == "1"


# -- accelerate ----------------------------------------------------------------------------

HF_ACCELERATE = """\
export TASK_NAME=mrpc
export OMP_NUM_THREADS=4

accelerate launch --config_file configs/ds_zero3.yaml \\
  --num-processes 8 --num_machines 2 --use_deepspeed --multi_gpu \\
  --deepspeed_config_file ds.json \\
  run_glue_no_trainer.py \\
  --model_name_or_path bert-base-cased \\
  --task_name $TASK_NAME
"""


def test_accelerate_launch_facts():
    launch = parse_launch_file(HF_ACCELERATE)
    cmd = launch.commands[0]
    acc = cmd.launchers[0]
    assert acc.kind == "accelerate"
    assert acc.word == "accelerate launch"
    assert acc.span.start == Location(4, 1) and acc.span.end == Location(4, 18)
    assert acc.options["num_processes"].name == "--num-processes"
    assert acc.options["num_processes"].name_span.start == Location(5, 3)
    facts = cmd.accelerate
    assert facts.config_file == "configs/ds_zero3.yaml"
    assert (facts.num_processes, facts.num_machines) == (8, 2)
    assert facts.use_deepspeed and facts.multi_gpu
    assert facts.deepspeed_config_file == "ds.json"
    assert (cmd.nproc_per_node, cmd.nnodes, cmd.world_size) == (4, 2, 8)
    assert cmd.script == "run_glue_no_trainer.py"
    assert [a.value for a in cmd.script_args] == ["--model_name_or_path", "bert-base-cased", "--task_name", "mrpc"]
    assert cmd.env["OMP_NUM_THREADS"].source == "export"
    assert cmd.omp_num_threads == "4"
    assert launch.variables == {"TASK_NAME": "mrpc", "OMP_NUM_THREADS": "4"}


def test_accelerate_without_thread_flag_exports_one_thread():
    cmd = parse_launch_file("accelerate launch --multi_gpu --num_processes=2 train.py\n").commands[0]
    assert cmd.omp_num_threads_by_launcher == "1"
    assert cmd.world_size == 2
    assert cmd.nproc_per_node is None  # --num_machines comes from the config
    module = parse_launch_file("accelerate launch -m pkg.train\n").commands[0]
    assert module.module == "pkg.train"


# -- Slurm ---------------------------------------------------------------------------------

SBATCH_TORCHRUN = """\
#!/bin/bash
#SBATCH --job-name=llama-ft
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1          # one torchrun agent per node
#SBATCH --gres=gpu:8
#SBATCH -c 64
#SBATCH --time=12:00:00

export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
export MASTER_PORT=6000
GPUS_PER_NODE=8

srun --cpu-bind=none torchrun \\
    --nproc_per_node $GPUS_PER_NODE \\
    --nnodes $SLURM_NNODES \\
    --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT \\
    --rdzv_backend c10d \\
    finetune.py --deepspeed ds_config.json
#SBATCH --nodes=99
"""


def test_sbatch_srun_torchrun_multinode():
    launch = parse_launch_file(SBATCH_TORCHRUN)
    sb = launch.sbatch
    assert sb.nodes.value == "2" and sb.nodes.count == 2
    assert sb.nodes.span.start == Location(3, 9) and sb.nodes.span.end == Location(3, 18)
    assert sb.ntasks_per_node.count == 1
    assert sb.gpus_per_node.key == "gres" and sb.gpus_per_node.count == 8
    assert sb.cpus_per_task.name == "-c" and sb.cpus_per_task.count == 64
    assert sb.job_name.value == "llama-ft"
    assert [d.key for d in sb.all] == ["job-name", "nodes", "ntasks-per-node", "gres", "cpus-per-task", "time"]
    cmd = launch.commands[0]
    assert [lc.kind for lc in cmd.launchers] == ["srun", "torchrun"]
    assert cmd.launchers[0].options["cpu-bind"].value == "none"
    assert cmd.launchers[1].span.start == Location(13, 22)
    nproc = cmd.launchers[1].options["nproc_per_node"]
    assert nproc.name_span.start == Location(14, 5)
    assert nproc.value_span.start == Location(14, 22)
    assert cmd.nproc_per_node == 8
    assert cmd.nnodes == 2  # $SLURM_NNODES: what sbatch sets from `#SBATCH --nodes=2`
    assert cmd.srun.nodes == 2 and cmd.srun.ntasks_per_node == 1 and cmd.srun.gpus_per_node == 8
    assert cmd.srun.cpus_per_task == 64 and cmd.srun.job_name == "llama-ft"
    assert cmd.env["MASTER_PORT"].value == "6000"
    assert cmd.env["MASTER_ADDR"].value is None
    assert cmd.deepspeed_config_arg == "ds_config.json"


def test_srun_python_takes_ranks_from_slurm():
    text = "#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-node=a100:4\nsrun python train.py\n"
    launch = parse_launch_file(text)
    cmd = launch.commands[0]
    assert [lc.kind for lc in cmd.launchers] == ["srun", "python"]
    assert cmd.launchers[1].span.start == Location(4, 6)
    assert (cmd.nproc_per_node, cmd.nnodes, cmd.world_size) == (4, 2, 8)
    assert launch.sbatch.gpus_per_node.count == 4
    own = parse_launch_file("srun -N1 -n 2 --ntasks-per-node=2 --exclusive python t.py\n").commands[0]
    assert own.srun.nodes == 1 and own.srun.ntasks == 2
    assert own.world_size == 2
    assert own.script == "t.py"  # --exclusive takes a value only with `=`


# -- mpirun --------------------------------------------------------------------------------

def test_mpirun_python():
    text = "mpirun -np 16 -npernode 8 --map-by ppr:4:socket -x NCCL_DEBUG=INFO -x OMP_NUM_THREADS=4 --mca btl ^openib python -u train.py\n"
    cmd = parse_launch_file(text).commands[0]
    assert [lc.kind for lc in cmd.launchers] == ["mpirun", "python"]
    mpi = cmd.mpirun
    assert (mpi.np, mpi.npernode, mpi.map_by) == (16, 8, "ppr:4:socket")
    assert mpi.exported == {"NCCL_DEBUG": "INFO", "OMP_NUM_THREADS": "4"}
    assert cmd.launchers[0].options["mca"].value == "btl ^openib"
    assert cmd.launchers[1].span.start == Location(1, col(text, 1, "python"))
    assert cmd.omp_num_threads == "4" and cmd.omp_num_threads_set
    assert (cmd.world_size, cmd.nproc_per_node) == (16, 8)
    assert cmd.script == "train.py"


def test_mpirun_unknown_option_values_stop_at_the_program():
    cmd = parse_launch_file("mpiexec -genv FOO 1 -n 4 python3 train.py\n").commands[0]
    assert cmd.mpirun.np == 4
    assert cmd.script == "train.py"
    assert cmd.launchers[0].options["genv"].known is False


# -- Lightning -----------------------------------------------------------------------------

def test_fabric_run_and_legacy_lightning_run_model():
    cmd = parse_launch_file("fabric run --devices=4 --num-nodes 2 --strategy ddp train_fabric.py --lr 3\n").commands[0]
    assert cmd.launchers[0].kind == "lightning" and cmd.launchers[0].word == "fabric run"
    assert (cmd.nproc_per_node, cmd.nnodes, cmd.world_size) == (4, 2, 8)
    assert cmd.script == "train_fabric.py"
    legacy = parse_launch_file("lightning run model --devices 0,1 train.py\n").commands[0]
    assert legacy.launchers[0].span.end == Location(1, 20)
    assert legacy.nproc_per_node == 2


def test_plain_python_script_is_a_launch_but_not_other_python():
    launch = parse_launch_file("python train.py --devices 2\npython -c 'import torch'\npip install x\npython setup.py\n")
    assert [c.script for c in launch.commands] == ["train.py", "setup.py"]
    assert launch.commands[0].nproc_per_node is None


# -- Makefile ------------------------------------------------------------------------------

MAKEFILE = """\
NGPUS ?= 4
CONFIG := configs/ds_config.json
export OMP_NUM_THREADS = 2

.PHONY: train
train: data
\t@echo "training on $(NGPUS) GPUs"
\tdeepspeed --num_gpus $(NGPUS) train.py \\
\t  --deepspeed_config $(CONFIG)

bench:
\tcd bench && torchrun --nproc_per_node=$$(nproc) bench.py
"""


def test_makefile_recipes_and_make_variables():
    launch = parse_launch_file(MAKEFILE, "Makefile")
    assert launch.variables == {"NGPUS": "4", "CONFIG": "configs/ds_config.json", "OMP_NUM_THREADS": "2"}
    ds, tr = launch.commands
    assert ds.launchers[0].span.start == Location(8, 2)
    assert ds.launchers[0].options["num_gpus"].value == "4"
    assert ds.launchers[0].options["num_gpus"].value_span.start == Location(8, 23)
    assert ds.num_gpus == 4
    assert ds.deepspeed_config_arg == "configs/ds_config.json"
    assert ds.omp_num_threads == "2"
    assert ds.env["OMP_NUM_THREADS"].source == "export"
    assert tr.launchers[0].span.start == Location(12, 14)
    assert tr.nproc_per_node is None
    assert tr.reasons["nproc_per_node"] == "--nproc_per_node $$(nproc) is not a literal"


def test_an_export_in_one_recipe_line_is_gone_at_the_next_unless_oneshell():
    recipe = "train:\n\texport OMP_NUM_THREADS=8\n\tN=4\n\ttorchrun --nproc_per_node 2 t.py\n"
    (command,) = parse_launch_file(recipe, "Makefile").commands
    assert "OMP_NUM_THREADS" not in command.env and command.omp_num_threads is None
    (joined,) = parse_launch_file("train:\n\texport OMP_NUM_THREADS=8; torchrun --nproc_per_node 2 t.py\n",
                                  "Makefile").commands
    assert joined.omp_num_threads == "8"
    (one_shell,) = parse_launch_file(".ONESHELL:\n" + recipe, "Makefile").commands
    assert one_shell.omp_num_threads == "8"
    made = parse_launch_file("export OMP_NUM_THREADS = 2\ntrain:\n\ttorchrun --nproc_per_node 2 t.py\n", "Makefile")
    assert made.commands[0].omp_num_threads == "2"  # (make's own export reaches every recipe line)


def test_make_hint_by_name():
    launch = parse_launch_file("N=2\nrun:\n\ttorchrun --nproc_per_node $(N) t.py\n", "rules/train.mk")
    assert launch.commands[0].nproc_per_node == 2


# -- shell syntax --------------------------------------------------------------------------

def test_commands_in_blocks_loops_and_chains():
    text = """\
for seed in 1 2 3; do
  if [ -d out ]; then rm -rf out; fi && CUDA_VISIBLE_DEVICES=0 python train.py --seed $seed; done
nohup torchrun --nproc_per_node 2 a.py > log 2>&1 &
case "$MODE" in
  big) deepspeed --num_gpus 8 b.py ;;
esac
"""
    launch = parse_launch_file(text)
    assert [c.launchers[-1].kind for c in launch.commands] == ["python", "torchrun", "deepspeed"]
    py, tr, ds = launch.commands
    assert py.env["CUDA_VISIBLE_DEVICES"].value == "0"
    assert py.script_args[1].value is None  # $seed
    assert tr.span.start == Location(3, 1)
    assert tr.launchers[0].span.start == Location(3, 7)
    assert [a.value for a in tr.script_args] == []
    assert ds.launchers[0].span.start == Location(5, 8)


def test_quotes_and_escapes():
    text = "torchrun --nproc_per_node \"2\" 'my script.py' \"--name=a b\" \\\"x\n"
    cmd = parse_launch_file(text).commands[0]
    assert cmd.nproc_per_node == 2
    assert cmd.launchers[0].options["nproc_per_node"].value_span.start == Location(1, 27)
    assert cmd.script == "my script.py"
    assert [a.value for a in cmd.script_args] == ["--name=a b", '"x']


def test_bash_c_inside_srun_is_parsed_with_exact_positions():
    # bash -c runs its argument as a command line, so the torchrun runs under srun (one per task),
    # as in the double-quoted form; the single-quoted script keeps its exact positions.
    text = "srun bash -c 'torchrun --nproc_per_node 4 t.py'\n"
    launch = parse_launch_file(text)
    inner = [c for c in launch.commands if c.launchers[-1].kind == "torchrun"]
    assert len(inner) == 1
    assert [lc.kind for lc in inner[0].launchers] == ["srun", "torchrun"]
    assert inner[0].launchers[1].span.start == Location(1, 15)
    assert inner[0].nproc_per_node == 4


def test_variables_expand_only_when_literal():
    text = "N=4\nN2=$N\nexport WORLD=${N}\nP=${PORT:-29500}\ntorchrun --nproc_per_node $N2 --master_port $P t.py\n"
    launch = parse_launch_file(text)
    # `${PORT:-29500}`: the script as written runs with 29500, a value its caller may change
    assert launch.variables == {"N": "4", "N2": "4", "WORLD": "4", "P": "29500"}
    cmd = launch.commands[0]
    assert cmd.nproc_per_node == 4
    assert cmd.master_port is None  # a port from a default is not a fixed one
    assert cmd.env["WORLD"].source == "export"
    assert cmd.env["P"].value == "29500" and cmd.env["P"].from_default


# -- is_launch_file ------------------------------------------------------------------------

def test_is_launch_file():
    assert is_launch_file("scripts/run.sh", "#!/bin/bash\ndeepspeed t.py\n")
    assert is_launch_file("job.slurm", "#SBATCH -N 1\necho hi\n")
    assert is_launch_file("Makefile", "train:\n\ttorchrun t.py\n")
    assert is_launch_file("tools/launch", "#!/usr/bin/env bash\ntorchrun t.py\n")
    assert not is_launch_file("build.sh", "#!/bin/sh\nmake all\n")
    assert not is_launch_file("train.py", "import torch\n")
    assert not is_launch_file("README.md", "run `torchrun t.py`\n")


# -- hostile input -------------------------------------------------------------------------

def test_garbage_and_binary_yield_empty_results():
    assert parse_launch_file("\x00\x01\xff\ufffd<<<>>>|||&&&;;;((((}}}}$(((`").commands == []
    assert parse_launch_file("").commands == []
    assert parse_launch_file(bytes(range(256)).decode("latin-1") * 20).commands == []


def test_unterminated_quotes_give_a_best_effort_parse():
    cmd = parse_launch_file("torchrun --nproc_per_node 2 train.py --name 'unterminated\n").commands[0]
    assert cmd.nproc_per_node == 2
    assert cmd.script == "train.py"
    assert cmd.script_args[1].value == "unterminated\n"
    assert parse_launch_file('deepspeed "t.py').commands[0].script == "t.py"
    assert parse_launch_file("torchrun $(echo").commands[0].script is None
    assert parse_launch_file("torchrun --nproc_per_node").commands[0].nproc_per_node is None


def test_results_pickle():
    launch = parse_launch_file(SBATCH_TORCHRUN)
    assert pickle.loads(pickle.dumps(launch)) == launch


def test_ten_thousand_lines_keep_every_command_and_position():
    # Speed is measured by bench/, not asserted here; this checks a long file stays correct.
    block = "export A=1\nif [ -f x ]; then echo $A; fi\ntorchrun --nproc_per_node 2 t.py --x $A \\\n  --y 2\n"
    launch = parse_launch_file(block * 2500)
    assert len(launch.commands) == 2500
    assert launch.commands[-1].launchers[0].span.start == Location(9999, 1)


def test_a_count_from_a_default_is_taken_as_written_and_a_port_from_one_is_not_fixed():
    text = ('GPUS=${GPUS:-4}\nexport MASTER_PORT=${MASTER_PORT:-29500}\n'
            'torchrun --nproc_per_node="$GPUS" --master_port $MASTER_PORT train.py\n')
    cmd = parse_launch_file(text).commands[0]
    assert cmd.nproc_per_node == 4
    assert cmd.master_port is None
    assert cmd.launchers[0].options["master_port"].from_default



CASE_SCRIPT = """\
case "$1" in
  small) NGPU=2; CFG=ds_small.json ;;
  big) NGPU=8; CFG=ds_big.json ;;
  *) echo "usage: $0 small|big" >&2; exit 1 ;;
esac
deepspeed --num_gpus "$NGPU" train.py --deepspeed_config "$CFG"
"""


def test_values_a_case_sets_together_give_one_candidate_launch_per_branch():
    commands = parse_launch_file(CASE_SCRIPT, "run.sh").commands
    assert [(c.num_gpus, c.deepspeed_config_arg) for c in commands] == [(2, "ds_small.json"), (8, "ds_big.json")]
    assert len({c.span for c in commands}) == 1  # (one line, walked once per branch)


def test_a_branch_that_exits_does_not_reach_the_launch_and_equal_branches_do_not_fork():
    one = CASE_SCRIPT.replace("  big) NGPU=8; CFG=ds_big.json ;;\n", "")
    assert [(c.num_gpus, c.deepspeed_config_arg) for c in parse_launch_file(one, "run.sh").commands] == \
        [(2, "ds_small.json")]
    same = "if [ -n \"$X\" ]; then echo a; else echo b; fi\nN=4\ndeepspeed --num_gpus $N t.py\n"
    assert [c.num_gpus for c in parse_launch_file(same, "run.sh").commands] == [4]


def test_forks_are_bounded_then_the_values_are_unknown():
    script = "".join(f"if [ \"$A{i}\" ]; then N{i}=1; else N{i}=2; fi\n" for i in range(12))
    commands = parse_launch_file(script + "deepspeed --num_gpus $N11 t.py\n", "run.sh").commands
    assert 1 < len(commands) <= 9 and {c.num_gpus for c in commands} <= {1, 2, None}
