"""Values read from OmegaConf / Hydra YAML configs (facts/values.config_object_read,
facts/omegaconf_values.py) and DSL101 on a device that comes from one."""
from __future__ import annotations

import ast
from pathlib import Path

from dslint import engine
from dslint.facts.bindings import SemanticModel
from dslint.facts.link import link_setups
from dslint.facts.omegaconf_values import setup_read_value
from dslint.facts.values import config_object_read
from dslint.settings import Settings

LOADED = """\
import torch, torch.distributed as dist
from omegaconf import OmegaConf

def run():
    opts = OmegaConf.load("settings/run.yaml")
    dist.init_process_group("nccl")
    net = torch.nn.Linear(8, 8)
{extra}    net.to(opts.hw["device"])

if __name__ == "__main__":
    run()
"""

HYDRA = """\
import hydra, torch, torch.distributed as dist

@hydra.main(version_base=None, config_path="cfgs", config_name="main")
def entry(conf):
    dist.init_process_group("nccl")
    torch.cuda.set_device(conf.machine.gpu)

if __name__ == "__main__":
    entry()
"""


def _dsl101(project) -> list:
    return [f for f in project.check(select=["DSL101"]).findings if f.code == "DSL101"]


def _loaded(project, device: str, extra: str = "", launch: str = "torchrun --nproc_per_node 2 job/main.py\n"):
    return project.write({"job/main.py": LOADED.format(extra=extra), "job/settings/run.yaml": f"hw:\n  device: {device}\nlr: 0.1\n",
                          "go.sh": launch})


def test_loaded_yaml_fixed_gpu_is_flagged_with_its_origin(project):
    found = _dsl101(_loaded(project, "cuda:0"))
    assert len(found) == 1 and "hw.device in settings/run.yaml" in found[0].message and "'cuda:0'" in found[0].message


def test_loaded_yaml_relative_to_the_jobs_folder_too(project):
    project.write({"job/main.py": LOADED.format(extra=""), "settings/run.yaml": "hw:\n  device: cuda:3\n",
                   "go.sh": "torchrun --nproc_per_node 2 job/main.py\n"})
    assert len(_dsl101(project)) == 1


def test_loaded_yaml_unknown_or_per_rank_values_say_nothing(make_project):
    for name, device in (("plain", "cuda"), ("interp", "'cuda:${oc.env:LOCAL_RANK}'"), ("missing", "'???'")):
        assert _dsl101(_loaded(make_project(name), device)) == [], name


def test_a_script_that_changes_the_config_says_nothing(make_project):
    stored = _loaded(make_project("stored"), "cuda:0", extra="    opts.hw.device = f\"cuda:{dist.get_rank()}\"\n")
    assert _dsl101(stored) == []
    merged = _loaded(make_project("merged"), "cuda:0", extra="    OmegaConf.update(opts, 'hw.device', 'cuda:1')\n")
    assert _dsl101(merged) == []


def test_one_process_launch_says_nothing(project):
    assert _dsl101(_loaded(project, "cuda:0", launch="torchrun --nproc_per_node 1 job/main.py\n")) == []


def _hydra(project, launch: str, primary: str = "defaults:\n  - machine: box\n  - _self_\nsteps: 3\n",
           box: str = "gpu: 0\n"):
    return project.write({"app/train.py": HYDRA, "app/cfgs/main.yaml": primary, "app/cfgs/machine/box.yaml": box,
                          "app/cfgs/machine/pool.yaml": "gpu: ${oc.env:LOCAL_RANK}\n", "launch.sh": launch})


def test_hydra_group_default_gives_the_leaf(project):
    found = _dsl101(_hydra(project, "torchrun --nproc_per_node 4 app/train.py\n"))
    assert len(found) == 1 and "machine.gpu" in found[0].message and "GPU 0" in found[0].message


def test_hydra_overrides_on_the_launch_line(make_project):
    assert _dsl101(_hydra(make_project("key"), "torchrun --nproc_per_node 4 app/train.py machine.gpu=1\n")) == []
    assert _dsl101(_hydra(make_project("group"), "torchrun --nproc_per_node 4 app/train.py machine=pool\n")) == []
    assert _dsl101(_hydra(make_project("unread"), "torchrun --nproc_per_node 4 app/train.py \"$@\"\n")) == []
    assert _dsl101(_hydra(make_project("name"), "torchrun --nproc_per_node 4 app/train.py --config-name other\n")) == []
    # an override of another key leaves this one proven
    assert len(_dsl101(_hydra(make_project("other"), "torchrun --nproc_per_node 4 app/train.py steps=9\n"))) == 1


def test_hydra_shapes_it_does_not_model_say_nothing(make_project):
    launch = "torchrun --nproc_per_node 4 app/train.py\n"
    both = _hydra(make_project("both"), launch, primary="defaults:\n  - machine: box\n  - _self_\nmachine:\n  gpu: 0\n")
    package = _hydra(make_project("package"), launch, primary="defaults:\n  - machine@hw: box\n")
    header = _hydra(make_project("header"), launch, box="# @package _global_\ngpu: 0\n")
    for built in (both, package, header):
        assert _dsl101(built) == [], built.root.name


def _model(source: str) -> tuple[SemanticModel, ast.Module]:
    tree = ast.parse(source)
    return SemanticModel(tree), tree


def _last_call_argument(tree: ast.Module) -> ast.expr:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args]
    return max(calls, key=lambda c: (c.lineno, c.col_offset)).args[0]


def test_config_object_read_follows_names_and_refuses_helpers():
    model, tree = _model("from omegaconf import OmegaConf\nc = OmegaConf.load('a.yaml')\nd = c.x['y']\nf(d)\n")
    read = config_object_read(model, _last_call_argument(tree))
    assert read is not None and (read.how, read.path, read.keys) == ("load", "a.yaml", ("x", "y"))
    model, tree = _model("from omegaconf import OmegaConf\nc = OmegaConf.load('a.yaml')\nprep(c)\nf(c.x)\n")
    assert config_object_read(model, _last_call_argument(tree)) is None
    model, tree = _model("import yaml\nc = yaml.load('a.yaml')\nf(c.x)\n")
    assert config_object_read(model, _last_call_argument(tree)) is None


def test_deepspeed_config_path_from_a_hydra_group(tmp_path: Path):
    (tmp_path / "conf/ds").mkdir(parents=True)
    (tmp_path / "train.py").write_text(
        "import deepspeed, hydra\n\n@hydra.main(config_path='conf', config_name='top')\ndef go(c):\n"
        "    deepspeed.initialize(model=None, config=c.ds.file)\n\ngo()\n")
    (tmp_path / "conf/top.yaml").write_text("defaults:\n  - ds: small\nsteps: 2\n")
    (tmp_path / "conf/ds/small.yaml").write_text("file: zero/small.json\n")
    (tmp_path / "conf/ds/large.yaml").write_text("file: zero/large.json\n")
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node 2 train.py ds=large\n")
    values = Settings.model_validate({})
    sources, _ = engine.discover([str(tmp_path)], values, tmp_path)
    project = engine.build_project(tmp_path, engine.check_files(sources, values))
    [setup] = [s for s in link_setups(project, values) if s.launch_path]
    [ref] = [r for r in setup.facts.config_refs if r.how == "config-object"]
    assert setup_read_value(project, setup, ref.config_read) == "zero/large.json"


def test_hydra_main_in_an_imported_module_sees_the_entry_launch_overrides(make_project):
    def build(name: str, words: str):
        return make_project(name).write({
            "app/train.py": HYDRA.replace('if __name__ == "__main__":\n    entry()\n', ""),
            "app/run.py": "from train import entry\n\nentry()\n",
            "app/cfgs/main.yaml": "defaults:\n  - machine: box\n", "app/cfgs/machine/box.yaml": "gpu: 0\n",
            "launch.sh": f"torchrun --nproc_per_node 4 app/run.py {words}\n"})
    assert _dsl101(build("plain", "")) != []
    assert _dsl101(build("override", "machine.gpu=2")) == []
