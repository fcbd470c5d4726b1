"""Facts of the seventh session: a loader's role from the class or function it is passed into."""
from __future__ import annotations

HEAD = "import os\n\nimport torch\nimport torch.distributed as dist\n\n"
SETUP = ("\ndist.init_process_group('nccl')\nlocal_rank = int(os.environ['LOCAL_RANK'])\n"
         "torch.cuda.set_device(local_rank)\n")


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- rules/distributed.py: DSL301, the role of a loader passed into a hook ---------------------------

HOOKS = HEAD + "from torch.utils.data import DataLoader, TensorDataset\n\nfrom hooks import CALLEE\n" + SETUP + (
    "model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda(), device_ids=[local_rank])\n"
    "ds = TensorDataset(torch.randn(64, 8))\n"
    "hooks = [CALLEE(DataLoader(ds, batch_size=8))]\n")


def test_a_loader_passed_into_a_validation_hook_is_for_evaluation(project):
    for callee in ("ValidationHook", "EvalRunner", "run_test"):
        project.write({"train.py": HOOKS.replace("CALLEE", callee),
                       "hooks.py": f"class {callee}:\n    def __init__(self, loader):\n        self.loader = loader\n"})
        assert rows(project, "DSL301") == [], callee


def test_a_loader_passed_into_a_training_hook_is_still_reported(project):
    project.write({"train.py": HOOKS.replace("CALLEE", "Prefetcher"),
                   "hooks.py": "class Prefetcher:\n    def __init__(self, loader):\n        self.loader = loader\n"})
    assert rows(project, "DSL301") == [15]


# -- facts/values.py + omegaconf_values.py: OmegaConf.load(args.config) -------------------------------

OMEGA = ("import argparse\n\nimport deepspeed\nimport torch\nfrom omegaconf import OmegaConf\n\n"
         "p = argparse.ArgumentParser()\np.add_argument('--config', default='conf/a.yaml')\n"
         "args = p.parse_args()\ncfg = OmegaConf.load(args.config)\n"
         "ds_config = OmegaConf.to_container(cfg.ds, resolve=True)\nmodel = torch.nn.Linear(4, 4)\n"
         "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)\n")
GOOD = "ds:\n  train_micro_batch_size_per_gpu: 4\n  zero_optimization:\n    stage: 2\n"
BAD = "ds:\n  train_micro_batch_size_per_gpu: 4\n  zero_optimisation:\n    stage: 2\n"


def test_a_yaml_named_by_an_option_is_the_one_the_launch_passes(project):
    files = {"train.py": OMEGA, "conf/a.yaml": GOOD, "conf/b.yaml": BAD}
    project.write({**files, "run.sh": "deepspeed --num_gpus 2 train.py --config conf/b.yaml\n"})
    found = [(f.path, f.span.start.row) for f in project.check(select=["DSL601"]).findings]
    assert found == [("conf/b.yaml", 3)]
    project.write({**files, "run.sh": "deepspeed --num_gpus 2 train.py\n"})  # the default, which is right
    assert project.check(select=["DSL601"]).findings == []


def test_a_yaml_option_a_word_may_pass_is_not_read(project):
    project.write({"train.py": OMEGA.replace("conf/a.yaml", "conf/b.yaml"), "conf/b.yaml": BAD,
                   "run.sh": "deepspeed --num_gpus 2 train.py \"$@\"\n"})
    assert project.check(select=["DSL601"]).findings == []


# -- facts/script_setup.py + link.py: a TrainingArguments subclass of another module ------------------

SFT = ("from transformers import HfArgumentParser, Trainer\n\nfrom args import MyArgs\n\n"
       "(targs,) = HfArgumentParser(MyArgs).parse_args_into_dataclasses()\n"
       "Trainer(model=None, args=targs).train()\n")
ARGS = ("from dataclasses import dataclass, field\n\nfrom transformers import BASE\n\n\n"
        "@dataclass\nclass MyArgs(BASE):\n    deepspeed: str = field(default='ds/z2.json')\n")
SCHED = ('{"train_micro_batch_size_per_gpu": "auto", "scheduler": {"type": "WarmupLR", "params": {}},\n'
         ' "zero_optimization": {"stage": 2}}\n')


def test_the_deepspeed_default_of_an_imported_training_arguments_subclass_is_the_config(project):
    project.write({"sft.py": SFT, "args.py": ARGS.replace("BASE", "TrainingArguments"), "ds/z2.json": SCHED,
                   "run.sh": "deepspeed --num_gpus 4 sft.py --output_dir out\n"})
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL612"]).findings] == [("ds/z2.json", 1)]


def test_no_config_from_an_imported_class_that_is_no_training_arguments_or_when_the_line_may_pass_one(project):
    files = {"sft.py": SFT, "ds/z2.json": SCHED}
    project.write({**files, "args.py": ARGS.replace("BASE", "PretrainedConfig"),
                   "run.sh": "deepspeed --num_gpus 4 sft.py --output_dir out\n"})
    assert project.check(select=["DSL612"]).findings == []
    project.write({**files, "args.py": ARGS.replace("BASE", "TrainingArguments"),
                   "run.sh": "deepspeed --num_gpus 4 sft.py --output_dir out \"$@\"\n"})
    assert project.check(select=["DSL612"]).findings == []


# -- facts/config_dicts.py: a loaded config changed under a test of a command-line option -------------

RAISED = ("import argparse\nimport json\n\nimport deepspeed\nimport torch\n\n"
          "p = argparse.ArgumentParser()\np.add_argument('--zero3', OPTION)\nargs = p.parse_args()\n"
          "with open('base.json') as fh:\n    cfg = json.load(fh)\n"
          "if TEST:\n    cfg['zero_optimization'].update(stage=3)\n"
          "model = torch.nn.Linear(8, 8)\n"
          "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)\n"
          "if engine.global_rank == 0:\n    torch.save(engine.module.state_dict(), 'final.pt')\n")
BASE = '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}\n'
TRUE_BY_DEFAULT = "action=argparse.BooleanOptionalAction, default=True"


def dsl503(project, option, test, line):
    project.write({"train.py": RAISED.replace("OPTION", option).replace("TEST", test), "base.json": BASE,
                   "run.sh": f"deepspeed --num_gpus 4 {line}\n"})
    return rows(project, "DSL503")


def test_a_change_under_an_option_test_applies_as_the_launch_line_sets_the_option(project):
    assert dsl503(project, TRUE_BY_DEFAULT, "args.zero3", "train.py") == [17]
    assert dsl503(project, TRUE_BY_DEFAULT, "args.zero3", "train.py --no-zero3") == []
    assert dsl503(project, "action='store_true'", "args.zero3", "train.py") == []
    assert dsl503(project, "action='store_true'", "not args.zero3", "train.py") == [17]


def test_a_change_under_an_option_the_launch_may_pass_leaves_the_config_unknown(project):
    assert dsl503(project, "action='store_true'", "args.zero3", "train.py \"$@\"") == []
    assert dsl503(project, TRUE_BY_DEFAULT, "args.zero3 and args.local_rank", "train.py") == []


# -- facts/loaded_values.py: a resumable sampler's state saved at a step ------------------------------

CKPT = HEAD + (
    "class CheckpointIO:\n"
    "    def save(self, d, sampler=None, step=None):\n"
    "        if dist.get_rank() == 0 and sampler is not None:\n"
    "            torch.save(sampler.STATE, d + '/sampler')\n"
    "        dist.barrier()\n\n"
    "    def load(self, d, sampler=None):\n"
    "        if sampler is not None:\n"
    "            sampler.load_state_dict(torch.load(d + '/sampler'))\n"
    "        dist.barrier()\n")


def test_a_sampler_state_saved_at_a_step_and_loaded_back_holds_no_gpu_tensor(project):
    train = HEAD + "from ckpt import CheckpointIO\n" + SETUP + "CheckpointIO().load('out')\n"
    for state in ("state_dict(step)", "state_dict()"):
        project.write({"ckpt.py": CKPT.replace("STATE", state), "train.py": train,
                       "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
        assert rows(project, "DSL102") == [], state


# -- sources/files.py: a Python file that declares its encoding (PEP 263) -----------------------------

def test_a_python_file_in_its_declared_encoding_is_checked_and_written_back_in_it(project, tmp_path):
    from dslint.sources.files import decode_text, encode_text

    data = "# -*- coding: gbk -*-\n# 中文\nimport torch\n".encode("gbk")
    assert decode_text(data, python=True).splitlines()[1] == "# 中文"
    assert encode_text(decode_text(data, python=True) + "x = 1\n", data, python=True) == data + b"x = 1\n"
    (tmp_path / "gbk.py").write_bytes(data + b"import torch.distributed as dist\n")
    codes = [f.code for f in project.check().findings]
    assert "DSL002" not in codes
    plain = "# 中文\n".encode("gbk")  # no cookie: not UTF-8, unreadable as before
    try:
        decode_text(plain, python=True)
    except UnicodeDecodeError:
        pass
    else:
        raise AssertionError("a file without a cookie is read as UTF-8")


# -- rules/memory.py: DSL401, smoke forwards and programs that differentiate ---------------------------

SMOKE = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
         "if __name__ == '__main__':\n    x = INPUT\n    model = Net()\n    model.eval()\n    out = model(x)\n"
         "    print(out.shape)\n")


def test_a_forward_fed_only_a_made_up_tensor_is_a_smoke_test(project):
    project.write({"net.py": SMOKE.replace("INPUT", "torch.zeros(1, 200, 80)")})
    assert rows(project, "DSL401") == []
    project.write({"net.py": SMOKE.replace("INPUT", "torch.load('batch.pt')")})
    assert rows(project, "DSL401") == [13]


EVAL = ("import torch\n\nfrom models import ForceField\n\n\n"
        "def evaluate(model, loader):\n    model.eval()\n    total = 0.0\n    for batch in loader:\n"
        "        total += model(batch)['forces'].abs().mean().item()\n    return total\n\n\n"
        "evaluate(ForceField(), [torch.randn(5, 3)])\n")
FORCES = ("import torch\n\n\nclass ForceField(torch.nn.Module):\n    def forward(self, pos):\n"
          "        pos.requires_grad_(True)\n        energy = (pos ** 2).sum()\n"
          "        return {'forces': -CALL(energy, pos)[0]}\n")


def test_evaluation_in_a_program_that_differentiates_itself_is_not_reported(project):
    project.write({"train.py": EVAL, "models.py": FORCES.replace("CALL", "torch.autograd.grad")})
    assert rows(project, "DSL401") == []
    project.write({"train.py": EVAL, "models.py": FORCES.replace("CALL", "torch.ops.aten.mul")})
    assert rows(project, "DSL401") == [10]


# -- sources/newer_syntax.py: Python 3.12 syntax on an older interpreter -------------------------------

def test_newer_syntax_is_skipped_with_a_line_and_a_real_syntax_error_is_still_reported(project):
    import sys

    import pytest

    if sys.version_info >= (3, 12):
        pytest.skip("this interpreter parses Python 3.12 syntax")
    project.write({"a.py": "import torch\n\n\nclass Box[T]:\n    pass\n",
                   "b.py": "import torch\nrow = {'a': 1}\nprint(f'{row['a']}')\n",
                   "c.py": "import torch\nx = (\n"})
    result = project.check()
    assert [(f.path, f.code) for f in result.findings] == [("c.py", "DSL001")]
    assert [line.split(":")[0] for line in result.skipped] == ["skipped a.py", "skipped b.py"]


# -- rules/memory.py: DSL402, a from_pretrained model used in a training step --------------------------

DIFFUSION = ("import torch\nfrom diffusers import AutoencoderKL\n\n\n"
             "def main(loader):\n    model = torch.nn.Linear(4, 4).cuda()\n"
             "    opt = torch.optim.AdamW(model.parameters())\n"
             "    vae = AutoencoderKL.from_pretrained('sd-vae').to('cuda')\n    FREEZE\n"
             "    for step, x in enumerate(loader):\n        with torch.no_grad():\n            z = vae.encode(x)\n"
             "        loss = model(z).sum()\n        opt.zero_grad()\n        loss.backward()\n        opt.step()\n"
             "        if step % 100 == 0:\n            samples = vae.decode(z)\n")


def test_a_from_pretrained_autoencoder_decoding_in_the_training_loop_records_its_graph(project):
    project.write({"train.py": DIFFUSION.replace("FREEZE", "pass")})
    assert rows(project, "DSL402") == [18]


def test_a_frozen_or_trained_from_pretrained_model_is_not_reported(project):
    for change in ("vae.requires_grad_(False)", "opt.add_param_group({'params': vae.parameters()})", "vae.train()"):
        project.write({"train.py": DIFFUSION.replace("FREEZE", change)})
        assert rows(project, "DSL402") == [], change
    project.write({"train.py": DIFFUSION.replace("FREEZE", "pass").replace("            samples = vae.decode(z)",
                                                                           "            with torch.no_grad():\n"
                                                                           "                samples = vae.decode(z)")})
    assert rows(project, "DSL402") == []


# -- facts/config_dicts.py: an option without type= gives the passed word as a string -----------------

BUILDER = ('def make_ds_config(args):\n    return {"train_micro_batch_size_per_gpu": args.micro_bs,\n'
           '            "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 1}}\n')
MAIN = ("import argparse\n\nimport deepspeed\nimport torch\n\nfrom config import make_ds_config\n\n"
        "p = argparse.ArgumentParser()\np.add_argument('--micro-bs', OPTION)\nargs = p.parse_args()\n"
        "model = torch.nn.Linear(4, 4)\n"
        "deepspeed.initialize(model=model, model_parameters=model.parameters(), config=make_ds_config(args))\n")


def test_a_passed_value_of_an_option_without_type_is_a_string_in_the_config(project):
    for option, found in (("default=4", [2]), ("default=4, type=int", []), ("default=4, choices=['4', '8']", [])):
        project.write({"config.py": BUILDER, "train.py": MAIN.replace("OPTION", option),
                       "run.sh": "deepspeed --num_gpus 2 train.py --micro-bs 8\n"})
        assert [f.span.start.row for f in project.check(select=["DSL603"]).findings] == found, option


# -- facts/script_setup.py: DSL703, a port set beside an address the job computes ---------------------

LSF = ("import os\nimport subprocess\n\nimport torch.distributed as dist\n\n\n"
       "def setup():\n    ADDR\n    os.environ['MASTER_PORT'] = '23456'\n"
       "    dist.init_process_group('nccl', init_method='env://')\n\n\nsetup()\n")


def test_a_fixed_port_beside_a_computed_master_address_is_a_multi_node_rendezvous(project):
    computed = "os.environ['MASTER_ADDR'] = subprocess.check_output(['head', '-1', os.environ['LSB_DJOB_HOSTFILE']]).decode()"
    project.write({"train.py": LSF.replace("ADDR", computed)})
    assert rows(project, "DSL703") == []
    project.write({"train.py": LSF.replace("ADDR", "os.environ['MASTER_ADDR'] = 'localhost'")})
    assert rows(project, "DSL703") == [9]


# -- facts/link.py: a plain `python script.py` of a program that starts no process is one process ------

DEAD_INIT = HEAD + ("def init_distributed():\n    dist.init_process_group('nccl')\n\n\n"
                    "def main():\n    model = torch.nn.Linear(8, 8).to('cuda:0')\n    EXTRA\n\n\nmain()\n")


def test_a_plain_python_launch_of_a_program_that_starts_no_process_is_one_process(project):
    project.write({"infer.py": DEAD_INIT.replace("EXTRA", "pass"), "run.sh": "CUDA_VISIBLE_DEVICES=0 python3 infer.py\n"})
    assert rows(project, "DSL101") == []


def test_a_python_launch_of_a_program_that_may_start_processes_is_not_one_process(project):
    extra = "import subprocess; subprocess.run(['torchrun', '--nproc_per_node', '2', 'infer.py'])"
    project.write({"infer.py": DEAD_INIT.replace("EXTRA", extra), "run.sh": "python infer.py\n"})
    assert rows(project, "DSL101") == [11]
    project.write({"infer.py": DEAD_INIT.replace("EXTRA", "pass"), "run.sh": "torchrun --nproc_per_node 2 infer.py\n"})
    assert rows(project, "DSL101") == [11]


def test_a_made_up_tensor_moved_to_the_gpu_is_still_made_up(project):
    project.write({"net.py": SMOKE.replace("INPUT", "torch.ones(1, 3, 64, 64).cuda().half()")})
    assert rows(project, "DSL401") == []


def test_a_diffusers_pipeline_from_pretrained_runs_without_grad(project):
    code = DIFFUSION.replace("AutoencoderKL.from_pretrained", "StableDiffusionPipeline.from_pretrained").replace(
        "from diffusers import AutoencoderKL", "from diffusers import StableDiffusionPipeline").replace("FREEZE", "pass")
    project.write({"train.py": code})
    assert rows(project, "DSL402") == []


# -- facts/conditions.py: names that say "by or for the main process" are no rank test ----------------

GATHER = HEAD + "def all_gather_cpu(part, NAME=True):\n    if not NAME:\n        dist.barrier()\n    return part\n" + SETUP


def test_a_flag_named_for_the_main_process_is_no_rank_test(project):
    for name, found in (("collect_by_master", []), ("from_master", []), ("is_master", [8]), ("master", [8])):
        project.write({"comm.py": GATHER.replace("NAME", name)})
        assert rows(project, "DSL501") == found, name


# -- facts/collectives.py: the rank-0-first barrier pair after exits every rank takes alike -----------

FIRST = HEAD + ("from contextlib import contextmanager\n\n\n@contextmanager\ndef wait_for_the_master(local_rank):\n"
                "    if local_rank > 0:\n        dist.barrier()\n    yield\n    if local_rank == 0:\n"
                "        if not dist.is_available():\n            return\n"
                "        if TEST:\n            return\n        else:\n            dist.barrier()\n" + SETUP +
                "with wait_for_the_master(local_rank):\n    pass\n")


def test_the_second_half_of_a_barrier_pair_after_uniform_exits_is_paired(project):
    project.write({"dist.py": FIRST.replace("TEST", "not dist.is_initialized()")})
    assert rows(project, "DSL501") == []
    alone = FIRST.replace("TEST", "not dist.is_initialized()").replace("    if local_rank > 0:\n        dist.barrier()\n", "")
    project.write({"dist.py": alone})  # (no first half: the ranks past 0 never wait)
    assert rows(project, "DSL501") == [18]


# -- facts/conditions.py: a rank test stored on self in __init__ --------------------------------------

SAVER = ("import torch\nfrom accelerate import Accelerator\n\n\nclass Trainer:\n    def __init__(self, model):\n"
         "        self.accelerator = Accelerator()\n        self.model = self.accelerator.prepare(model)\n"
         "        self.can_checkpoint = self.accelerator.is_local_main_process\n\n"
         "    def save(self, path):\n        self.accelerator.wait_for_everyone()\n"
         "        torch.save(self.model.state_dict(), path)\n\n"
         "    def checkpoint(self):\n        if not self.can_checkpoint:\n            return\n"
         "        self.save('ckpt.pt')\n\n    EXTRA\n")


def test_a_rank_test_stored_on_self_in_init_gates_what_follows(project):
    project.write({"trainer.py": SAVER.replace("EXTRA", "pass")})
    assert rows(project, "DSL501") == [18]
    project.write({"trainer.py": SAVER.replace("EXTRA", "def unlock(self):\n        self.can_checkpoint = True")})
    assert rows(project, "DSL501") == []  # (set elsewhere too: not known to be the rank test)


# -- facts/script_setup.py + link.py: a DeepSpeedStrategy a function of another module returns --------

STRATEGY = ("from lightning.pytorch.strategies import DeepSpeedStrategy\n\n\n"
            "def build_ds_dict(stage=2):\n    return {'zero_optimization': {'stage': stage}, "
            "'gradient_accumulation_steps': 8, 'train_micro_batch_size_per_gpu': 2}\n\n\n"
            "def make_strategy(PARAMS):\n    return DeepSpeedStrategy(config=build_ds_dict())\n")
FIT = ("import lightning as L\n\nfrom strategy import make_strategy\n\n"
       "L.Trainer(accelerator='gpu', devices=2, strategy=make_strategy(ARGS)).fit(None)\n")


def test_the_config_of_a_strategy_built_by_a_function_of_another_module_is_read(project):
    project.write({"strategy.py": STRATEGY.replace("PARAMS", ""), "fit.py": FIT.replace("ARGS", ""),
                   "run.sh": "python fit.py\n"})
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL617"]).findings] == [("strategy.py", 5)]
    project.write({"strategy.py": STRATEGY.replace("PARAMS", "cfg"), "fit.py": FIT.replace("ARGS", "None")})
    assert project.check(select=["DSL617"]).findings == []  # (what a parameter changes is not known)


SUBCLASS = ("from lightning.pytorch.strategies import DeepSpeedStrategy\n\n\nclass OffloadStrategy(DeepSpeedStrategy):\n"
            "    def __init__(self, **kw):\n"
            "        super().__init__(stage=STAGE, offload_parameters=True, offload_optimizer=True, **kw)\n")
FIT2 = ("import lightning as L\n\nfrom strategies import OffloadStrategy\n\n"
        "L.Trainer(accelerator='gpu', devices=2, strategy=OffloadStrategy()).fit(None)\n")


def test_a_deepspeed_strategy_subclass_of_another_module_is_read_from_its_init(project):
    project.write({"strategies.py": SUBCLASS.replace("STAGE", "2"), "fit.py": FIT2, "run.sh": "python fit.py\n"})
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL608"]).findings] == [("fit.py", 5)]
    project.write({"strategies.py": SUBCLASS.replace("STAGE", "3"), "fit.py": FIT2})
    assert project.check(select=["DSL608"]).findings == []


# -- facts/loads.py: a torch2trt TRTModule's state is an engine, no tensor ----------------------------

TRT = HEAD + ("def evaluate(model, trt_file=None):\n    if trt_file is not None:\n        from torch2trt import MODULE\n"
              "        model_trt = MODULE()\n        model_trt.load_state_dict(torch.load(trt_file))\n"
              "        model = model_trt\n    return model\n" + SETUP + "evaluate(None, 'yolox.trt')\n")


def test_a_torch2trt_module_state_holds_no_gpu_tensor(project):
    project.write({"evaluator.py": TRT.replace("MODULE", "TRTModule"), "run.sh": "torchrun --nproc_per_node 2 evaluator.py\n"})
    assert rows(project, "DSL102") == []
    project.write({"evaluator.py": TRT.replace("MODULE", "Engine"), "run.sh": "torchrun --nproc_per_node 2 evaluator.py\n"})
    assert rows(project, "DSL102") == [10]


# -- facts/loads.py: a file saved from a model straight from from_pretrained is on the CPU ------------

EMB = HEAD + ("from transformers import AutoModel\n\n\ndef get_model(name, raw, out):\n"
              "    model = AutoModel.from_pretrained(name)\n    if raw is not None:\n"
              "        model.set_input_embeddings(torch.load(raw + '/embedding/emb.pth'))\n    MOVE\n"
              "    torch.save(model.embed_tokens, out + '/embedding/emb.pth')\n    return model\n" + SETUP +
              "get_model('m', 'raw', 'out')\n")


def test_a_file_saved_from_a_model_straight_from_from_pretrained_loads_on_the_cpu(project):
    project.write({"load_model.py": EMB.replace("MOVE", "pass"), "run.sh": "torchrun --nproc_per_node 2 load_model.py\n"})
    assert rows(project, "DSL102") == []
    project.write({"load_model.py": EMB.replace("MOVE", "model.cuda()"), "run.sh": "torchrun --nproc_per_node 2 load_model.py\n"})
    assert rows(project, "DSL102") == [12]


# -- facts/saved_archives.py + program_loads.py: a checkpoint committed beside the module -------------

def _archive(path, location):
    """A zip laid out as torch.save writes it, its pickle naming two storages saved on `location`."""
    import io
    import pickle
    import zipfile

    class Storage:
        def __init__(self, key):
            self.key = key

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", "FloatStorage", obj.key, location, 4) if isinstance(obj, Storage) else None

    buffer = io.BytesIO()
    Pickler(buffer, protocol=2).dump({"a": Storage("0"), "b": Storage("1")})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", buffer.getvalue())
        archive.writestr("archive/data/0", b"\0" * 16)


def test_a_checkpoint_committed_beside_the_module_with_cpu_storages_loads_on_the_cpu(project, tmp_path):
    from dslint.facts.saved_archives import storage_locations

    code = HEAD + "_Jd = torch.load(os.path.join(os.path.dirname(__file__), 'Jd.pt'))\n" + SETUP
    (tmp_path / "nets").mkdir()
    project.write({"nets/wigner.py": code, "run.sh": "torchrun --nproc_per_node 2 nets/wigner.py\n"})
    _archive(tmp_path / "nets" / "Jd.pt", "cpu")
    assert storage_locations(str(tmp_path / "nets" / "Jd.pt")) == {"cpu"}
    assert rows(project, "DSL102") == []
    _archive(tmp_path / "nets" / "Jd.pt", "cuda:0")
    assert storage_locations(str(tmp_path / "nets" / "Jd.pt")) == {"cuda:0"}
    assert rows(project, "DSL102") == [6]


# -- rules/distributed.py: DSL302, an endless generator over the loader -------------------------------

ENDLESS = HEAD + ("from torch.utils import data\n\n\ndef sample_data(loader):\n    while True:\n        BODY\n\n\n"
                  "def main(dataset, model):\n    dist.init_process_group('nccl')\n"
                  "    loader = data.DataLoader(dataset, batch_size=8, sampler=data.distributed.DistributedSampler(dataset))\n"
                  "    loader = sample_data(loader)\n    for i in range(1000):\n        model(next(loader))\n")


def test_a_loader_passed_to_an_endless_generator_passes_over_it_each_epoch(project):
    for body, row in (("for batch in loader:\n            yield batch", 17), ("yield from loader", 16)):
        project.write({"train.py": ENDLESS.replace("BODY", body)})
        assert rows(project, "DSL302") == [row], body
    project.write({"train.py": ENDLESS.replace("BODY", "for batch in loader:\n            yield batch\n        break")})
    assert rows(project, "DSL302") == []  # (one pass, then the generator ends)


def test_a_ray_actor_class_sees_only_its_own_gpus(project):
    code = HEAD + ("import ray\n\n\n@ray.remote\nclass Worker:\n    def __init__(self):\n"
                   "        dist.init_process_group('nccl')\n        self.x = torch.ones(2, device='cuda')\n"
                   "        dist.barrier()\n")
    project.write({"actor.py": code})
    assert rows(project, "DSL104") == []
    project.write({"actor.py": code.replace("@ray.remote\n", "")})
    assert rows(project, "DSL104") == [11]


def test_a_load_in_the_main_block_of_a_module_without_evidence_runs_only_as_its_own_script(project):
    quant = "import torch\n\n\ndef q(x):\n    return x\n\n\nif __name__ == '__main__':\n    w = torch.load('w.pt')\n"
    train = HEAD + "from quant import q\n" + SETUP + "q(1)\n"
    project.write({"quant.py": quant, "train.py": train, "run.sh": "torchrun --nproc_per_node 2 train.py\n"})
    assert rows(project, "DSL102") == []
    project.write({"quant.py": quant.replace("if __name__ == '__main__':\n    w", "def load():\n    w") + "\n\nload()\n"})
    assert rows(project, "DSL102") == [9]


def test_autograd_off_for_the_whole_script(project):
    code = ("import torch\n\ntorch.set_grad_enabled(False)\n\n\ndef evaluate(model, loader):\n    model.eval()\n"
            "    return [model(x) for x in loader]\n")
    project.write({"ev.py": code})
    assert rows(project, "DSL401") == []
    project.write({"ev.py": code.replace("torch.set_grad_enabled(False)", "pass")})
    assert rows(project, "DSL401") == [8]


def test_a_forward_whose_result_is_dropped_at_once_is_a_probe(project):
    code = ("import torch\n\n\ndef flops(model, make_input):\n    model.eval()\n    inputs = make_input()\n"
            "    RESULT model(**inputs)\n    return model.count\n")
    project.write({"probe.py": code.replace("RESULT", "_ =")})
    assert rows(project, "DSL401") == []
    project.write({"probe.py": code.replace("RESULT", "out =").replace("return model.count", "return out")})
    assert rows(project, "DSL401") == [7]
