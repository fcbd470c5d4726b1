"""DSL702 with Fabric's devices/num_nodes taken from a settings dataclass of another module at its defaults."""
from __future__ import annotations

SETTINGS = "from dataclasses import dataclass\n\n\n@dataclass\nclass FabricSettings:\n    devices: int = 2\n    num_nodes: int = 1\n"
TRAIN = """import lightning as L

from settings import FabricSettings


def main():
    s = FabricSettings(BUILT)
    fabric = L.Fabric(accelerator="cuda", devices=s.devices, num_nodes=s.num_nodes)
    fabric.launch()


if __name__ == "__main__":
    main()
"""


def _codes(project, built="", settings=SETTINGS):
    project.write({"settings.py": settings, "train.py": TRAIN.replace("BUILT", built),
                   "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    return [f.code for f in project.check(select=["DSL702"]).findings]


def test_the_defaults_disagree_with_the_launcher(project):
    assert _codes(project) == ["DSL702"]


def test_an_instance_built_with_its_own_devices_or_matching_defaults_is_unknown_or_right(project):
    assert _codes(project, built="devices=4") == []
    assert _codes(project, settings=SETTINGS.replace("devices: int = 2", "devices: int = 4")) == []
    post = SETTINGS + "\n    def __post_init__(self):\n        self.devices = 4\n"
    assert _codes(project, settings=post) == []
