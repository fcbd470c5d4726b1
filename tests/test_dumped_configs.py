"""A DeepSpeed config a project script generates with json.dump (a Makefile prerequisite, a prepare step):
when the tree does not hold the file the launch line names, the dict that script writes there is the config."""
from __future__ import annotations

TRAIN = ("import argparse\nimport deepspeed\nimport torch\n"
         "p = argparse.ArgumentParser()\n"
         "p.add_argument('--local_rank', type=int, default=-1)\n"
         "p = deepspeed.add_config_arguments(p)\n"
         "args = p.parse_args()\n"
         "model = torch.nn.Linear(8, 8)\n"
         "engine, opt, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())\n")
MAKER = ("import argparse\nimport json\n\n\n"
         "def zero2_offload(micro_batch, lr):\n"
         "    return {\n"
         "        \"train_micro_batch_size_per_gpu\": micro_batch,\n"
         "        \"optimizer\": {\"type\": \"AdamW\", \"params\": {\"lr\": lr}},\n"
         "        \"zero_optimization\": {\"stage\": 2, \"offload_optimizer\": {\"device\": \"cpu\"}},\n"
         "    }\n\n\n"
         "if __name__ == \"__main__\":\n"
         "    parser = argparse.ArgumentParser()\n"
         "    parser.add_argument(\"--out\", default=\"build/ds_config.json\")\n"
         "    parser.add_argument(\"--micro-batch\", type=int, default=4)\n"
         "    args = parser.parse_args()\n"
         "    with open(args.out, MODE) as f:\n"
         "        json.dump(zero2_offload(args.micro_batch, 2e-5), f, indent=2)\n")
MAKEFILE = ("CONFIG := build/ds_config.json\n\n"
            "$(CONFIG): tools/make_ds_config.py\n\tpython tools/make_ds_config.py --out $(CONFIG)\n\n"
            "finetune: $(CONFIG)\n\tdeepspeed --include localhost:0,1,2,3 train.py --deepspeed --deepspeed_config $(CONFIG)\n")


def found(project):
    return sorted((f.path, f.code, f.span.start.row) for f in project.check(select=["DSL201"]).findings)


def test_the_dict_a_script_dumps_to_the_named_path_is_the_config(project):
    project.write({"train.py": TRAIN, "tools/make_ds_config.py": MAKER.replace("MODE", '"w"'), "Makefile": MAKEFILE})
    assert found(project) == [("Makefile", "DSL201", 7)]  # ZeRO-Offload, 4 ranks on every core


def test_a_file_read_not_written_or_a_path_another_config_holds_is_not_it(project):
    project.write({"train.py": TRAIN, "tools/make_ds_config.py": MAKER.replace("MODE", '"r"'), "Makefile": MAKEFILE})
    assert found(project) == []
    # the tree holds the file: that is what the launch reads
    project.write({"train.py": TRAIN, "tools/make_ds_config.py": MAKER.replace("MODE", '"w"'), "Makefile": MAKEFILE,
                   "build/ds_config.json": '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}}\n'})
    assert found(project) == []


def test_two_scripts_writing_the_same_path_leave_it_unknown(project):
    maker = MAKER.replace("MODE", '"w"')
    project.write({"train.py": TRAIN, "tools/make_ds_config.py": maker, "tools/other_config.py": maker,
                   "Makefile": MAKEFILE + "\nother:\n\tpython tools/other_config.py\n"})
    assert found(project) == []


BATCH_MAKER = ("import argparse\nimport json\n\n"
               "parser = argparse.ArgumentParser()\n"
               "parser.add_argument('--micro', type=int, default=4)\n"
               "parser.add_argument('--out', default='build/ds.json')\n"
               "args = parser.parse_args()\n"
               "config = {\n"
               "    'train_batch_size': 32,\n"
               "    'train_micro_batch_size_per_gpu': args.micro,\n"
               "    'gradient_accumulation_steps': 1,\n"
               "}\n"
               "with open(args.out, 'w') as f:\n"
               "    json.dump(config, f)\n")


def batch(project, make_line):
    project.write({"train.py": TRAIN, "tools/make.py": BATCH_MAKER,
                   "Makefile": f"config:\n\t{make_line}\n\ntrain: config\n"
                               "\tdeepspeed --num_gpus 8 train.py --deepspeed_config build/ds.json\n"})
    return [(f.path, f.span.start.row, [r[0] for r in f.related])
            for f in project.check(select=["DSL610"]).findings]


def test_the_generators_own_launch_line_gives_its_options_and_output_path(project):
    # 8 x 1 x 8 = 64 != 32 with the --micro the Makefile passes; the default 4 would give 32 (fits)
    assert batch(project, "python tools/make.py --micro 8 --out build/ds.json") == [("tools/make.py", 9, ["Makefile"])]
    assert batch(project, "python tools/make.py --out build/ds.json") == []
    assert batch(project, "python tools/make.py --micro 8 --out build/other.json") == []  # another file
    assert batch(project, "python tools/make.py --micro $(MICRO) --out build/ds.json") == []  # not known
