"""DSL102 facts of the eighth session: the loader of a save_X/load_X pair whose saver writes CPU tensors."""
from __future__ import annotations

HEAD = ("import os\n\nimport torch\nimport torch.distributed as dist\n\n"
        "dist.init_process_group('nccl')\n\n\n")
MODEL = (HEAD +
         "class ModelBase:\n"
         "    def __init__(self, opt):\n"
         "        self.save_dir = opt['models']\n\n"
         "    def save_network(self, save_dir, network, label):\n"
         "        save_path = os.path.join(save_dir, f'{label}.pth')\n"
         "        state_dict = network.state_dict()\n"
         "SAVE_LOOP"
         "        torch.save(state_dict, save_path)\n\n"
         "    def load_network(self, load_path, network):\n"
         "        state_dict = torch.load(load_path)\n"
         "        network.load_state_dict(state_dict)\n")
MAIN = ("\n\nif __name__ == '__main__':\n"
        "    model, net = ModelBase({'models': 'out'}), torch.nn.Linear(2, 2).cuda()\n"
        "    model.save_network('out', net, 'G')\n"
        "    model.load_network('out/G.pth', net)\n")
CPU_LOOP = "        for key, param in state_dict.items():\n            state_dict[key] = param.cpu()\n"


def load_row(text):
    return next(i for i, line in enumerate(text.splitlines(), 1) if "torch.load(" in line)


def write(project, text):
    """Write the module with a main block that calls its saver and its loader; the load's row."""
    main = MAIN if "def load_network" in text else MAIN.replace("load_network", "load_optimizer")
    project.write({"model_base.py": text + main})
    return load_row(text)


def rows(project, path="model_base.py"):
    return [f.span.start.row for f in project.check(select=["DSL102"]).findings if f.path == path]


def test_the_loader_of_a_pair_whose_saver_copies_every_tensor_to_the_cpu_is_not_reported(project):
    write(project, MODEL.replace("SAVE_LOOP", CPU_LOOP))
    assert rows(project) == []


def test_a_saver_writing_a_cpu_comprehension_clears_its_loader(project):
    comprehension = MODEL.replace("SAVE_LOOP", "").replace(
        "torch.save(state_dict, save_path)", "torch.save({k: v.detach().cpu() for k, v in state_dict.items()}, save_path)")
    write(project, comprehension)
    assert rows(project) == []


def test_a_saver_of_gpu_state_or_an_unpaired_loader_is_still_reported(project):
    row = write(project, MODEL.replace("SAVE_LOOP", ""))
    assert rows(project) == [row]
    unpaired = MODEL.replace("SAVE_LOOP", CPU_LOOP).replace("def load_network", "def load_optimizer")
    row = write(project, unpaired)
    assert rows(project) == [row]


def test_a_loop_that_moves_only_some_items_or_a_gpu_value_added_after_keeps_the_finding(project):
    guarded = "        for key, param in state_dict.items():\n            if 'bn' in key:\n" \
              "                state_dict[key] = param.cpu()\n"
    row = write(project, MODEL.replace("SAVE_LOOP", guarded))
    assert rows(project) == [row]
    added = CPU_LOOP + "        state_dict['ema'] = network.ema\n"
    row = write(project, MODEL.replace("SAVE_LOOP", added))
    assert rows(project) == [row]


def test_a_second_gpu_save_in_the_saver_or_a_subclass_saver_keeps_the_finding(project):
    second = CPU_LOOP + "        torch.save(network.state_dict(), save_path + '.raw')\n"
    row = write(project, MODEL.replace("SAVE_LOOP", second))
    assert rows(project) == [row]
    subclass = MODEL.replace("SAVE_LOOP", CPU_LOOP) + (
        "\n\nclass ModelGAN(ModelBase):\n"
        "    def save_network(self, save_dir, network, label):\n"
        "        torch.save(network.state_dict(), os.path.join(save_dir, f'{label}.pth'))\n")
    row = write(project, subclass)
    assert rows(project) == [row]


def test_a_path_the_loader_rebinds_is_not_the_pair_file(project):
    rebound = MODEL.replace("SAVE_LOOP", CPU_LOOP).replace(
        "        state_dict = torch.load(load_path)\n",
        "        load_path = os.path.join('pretrained', load_path)\n        state_dict = torch.load(load_path)\n")
    row = write(project, rebound)
    assert rows(project) == [row]


def test_a_literal_file_saved_from_a_cpu_copied_state_dict_is_not_reported(project):
    project.write({"train.py": HEAD +
                   "net = torch.nn.Linear(2, 2).cuda()\n"
                   "sd = net.state_dict()\n"
                   "for k, v in sd.items():\n    sd[k] = v.cpu()\n"
                   "torch.save(sd, 'weights.pt')\n"
                   "net.load_state_dict(torch.load('weights.pt'))\n"})
    assert rows(project, "train.py") == []
