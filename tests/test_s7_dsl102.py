"""DSL102 facts of the seventh session: a helper that only rank-0-gated calls in other modules run."""
from __future__ import annotations

HELPER = ("import os\n\nimport torch\nfrom transformers import AutoModel\n\n\n"
          "def save_merged_model(name, out):\n"
          "    model = AutoModel.from_pretrained(name)\n"
          "    model.set_input_embeddings(torch.load(os.path.join(out, 'embedding', 'emb.pth')))\n"
          "    model.save_pretrained(os.path.join(out, 'merged'))\n")
RUNNER = ("from transformers import HfArgumentParser, Trainer, TrainingArguments\n\n"
          "from load_model import save_merged_model\n\n\n"
          "def main():\n"
          "    (training_args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n"
          "    trainer = Trainer(model=None, args=training_args)\n"
          "    trainer.train()\n"
          "CALL"
          "\n\nif __name__ == '__main__':\n    main()\n")
LAUNCH = {"run.sh": "torchrun --nproc_per_node 8 run.py --output_dir out\n"}
GATED = "    if training_args.save_merged and training_args.process_index == 0:\n" \
        "        save_merged_model('m', training_args.output_dir)\n"


def rows(project, path="load_model.py"):
    return [f.span.start.row for f in project.check(select=["DSL102"]).findings if f.path == path]


def test_a_helper_called_only_under_a_rank_zero_gate_in_other_modules_is_not_reported(project):
    project.write({"load_model.py": HELPER, "run.py": RUNNER.replace("CALL", GATED), **LAUNCH,
                   "merge.py": "import load_model\nfrom transformers import Trainer\n\n\n"
                               "def finish(trainer, out):\n"
                               "    if trainer.is_world_process_zero():\n"
                               "        load_model.save_merged_model('m', out)\n"})
    assert rows(project) == []


def test_a_helper_every_rank_calls_in_another_module_is_still_reported(project):
    ungated = "    save_merged_model('m', training_args.output_dir)\n"
    project.write({"load_model.py": HELPER, "run.py": RUNNER.replace("CALL", ungated), **LAUNCH})
    assert rows(project) == [9]


def test_one_ungated_caller_or_a_helper_passed_on_keeps_the_finding(project):
    project.write({"load_model.py": HELPER, "run.py": RUNNER.replace("CALL", GATED), **LAUNCH,
                   "merge.py": "import torch\n\nfrom load_model import save_merged_model\n\n\n"
                               "def finish(out):\n    save_merged_model('m', out)\n"})
    assert rows(project) == [9]
    passed = GATED + "    trainer.add_callback(save_merged_model)\n"
    project.write({"load_model.py": HELPER, "run.py": RUNNER.replace("CALL", passed), **LAUNCH,
                   "merge.py": "x = 1\n"})
    assert rows(project) == [9]


def test_a_gated_call_through_a_relative_import_in_a_runner_method_is_not_reported(project):
    runner = ("from transformers import Trainer\n\nfrom .load_model import save_merged_model\n\n\n"
              "class Runner:\n"
              "    def __init__(self, training_args):\n"
              "        self.training_args = training_args\n"
              "        self.trainer = Trainer(model=None, args=training_args)\n\n"
              "    def run(self):\n"
              "        self.trainer.train()\n"
              "        if self.training_args.save_merged and self.training_args.process_index == 0:\n"
              "            save_merged_model('m', self.training_args.output_dir)\n")
    train = ("from transformers import HfArgumentParser, TrainingArguments\n\nfrom pkg.runner import Runner\n\n"
             "if __name__ == '__main__':\n"
             "    (args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n"
             "    Runner(args).run()\n")
    files = {"pkg/__init__.py": "", "pkg/load_model.py": HELPER, "pkg/runner.py": runner, "run.py": train, **LAUNCH}
    project.write(files)
    assert rows(project, "pkg/load_model.py") == []
    project.write({**files, "pkg/runner.py": runner.replace("and self.training_args.process_index == 0", "")})
    assert rows(project, "pkg/load_model.py") == [9]


CONVERT = ("import torch\n\n\n"
           "def convert_onnx(net, path, output):\n"
           "    net.load_state_dict(torch.load(path))\n"
           "    torch.onnx.export(net, torch.zeros(1, 3, 112, 112), output)\n")
CALLBACK = ("import torch\n\nfrom convert import convert_onnx\n\n\n"
            "class Checkpoint:\n"
            "    def __init__(self, rank, output):\n"
            "        self.rank: int = rank\n"
            "        self.output: str = output\n\n"
            "    def __call__(self, step, backbone):\n"
            "        if step > 100 and GATE:\n"
            "            torch.save(backbone.module.state_dict(), self.output)\n"
            "            convert_onnx(backbone.module, self.output, 'b.onnx')\n")
TRAINER = ("import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom callbacks import Checkpoint\n\n\n"
           "def main():\n"
           "    rank = int(os.environ['RANK'])\n"
           "    dist.init_process_group('nccl')\n"
           "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2).cuda())\n"
           "    callback = Checkpoint(rank, 'out')\n"
           "    for step in range(1000):\n"
           "        callback(step, model)\n\n\n"
           "if __name__ == '__main__':\n    main()\n")


def test_a_rank_zero_gate_written_with_is_is_a_rank_zero_gate(project):
    def written(gate):
        project.write({"convert.py": CONVERT, "callbacks.py": CALLBACK.replace("GATE", gate), "train.py": TRAINER,
                       "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
        return rows(project, "convert.py")

    assert written("self.rank is 0") == []
    assert written("self.rank == 0") == []
    assert written("self.rank is not 0") == [5]  # every rank but 0 loads
    assert written("self.rank is False") == [5]  # `False` is not rank 0: a flag's other side


def test_the_exporters_own_main_block_is_its_own_one_process_program(project):
    main = "\n\nif __name__ == '__main__':\n    convert_onnx(torch.nn.Linear(2, 2), 'b.pth', 'b.onnx')\n"
    files = {"convert.py": CONVERT + main, "callbacks.py": CALLBACK.replace("GATE", "self.rank == 0"),
             "train.py": TRAINER, "run.sh": "torchrun --nproc_per_node 8 train.py\n"}
    project.write(files)
    assert rows(project, "convert.py") == []
    # launched with several processes itself, its main block runs in every rank
    project.write({**files, "run.sh": "torchrun --nproc_per_node 8 train.py\ntorchrun --nproc_per_node 8 convert.py\n"})
    assert rows(project, "convert.py") == [5]
    # a second, ungated caller in the main block's module keeps it too
    project.write({**files, "convert.py": CONVERT + main + "\n\ndef again(net):\n    convert_onnx(net, 'b.pth', 'c')\n",
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    assert rows(project, "convert.py") == [5]
