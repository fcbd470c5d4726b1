"""DSL305 through Accelerate: `model = accelerator.prepare(model)` is DistributedDataParallel in a
multi-process DDP launch, so a prepared model only used through `.module.generate` is DSL305's shape."""
from __future__ import annotations

INFER = """import torch
from accelerate import Accelerator
from transformers import AutoModelForSeq2SeqLM


def main():
    accelerator = Accelerator(ACCEL)
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-base")
    model.eval()
    FREEZE
    model, loader = accelerator.prepare(model, torch.utils.data.DataLoader(range(8)))
    ids = torch.ones(4, 8, dtype=torch.long, device=accelerator.device)
    for batch in loader:
        generate = model.module.generate if accelerator.num_processes > 1 else model.generate
        print(generate(ids, max_new_tokens=16).shape)
    TRAIN


if __name__ == "__main__":
    main()
"""


def source(accel="", freeze="pass", train="pass"):
    return INFER.replace("ACCEL", accel).replace("FREEZE", freeze).replace("TRAIN", train)


def rows(project, code="DSL305"):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


def test_a_prepared_model_used_only_through_module_generate_is_reported(project):
    project.write({"infer.py": source()})
    assert rows(project) == [11]


def test_the_model_at_its_position_of_a_single_prepare(project):
    project.write({"infer.py": source().replace(
        "model, loader = accelerator.prepare(model, torch.utils.data.DataLoader(range(8)))",
        "model = accelerator.prepare(model)\n    loader = range(2)")})
    assert rows(project) == [11]


def test_unwrap_model_generate_needs_a_multi_gpu_launch(project):
    text = source().replace("model.module.generate if accelerator.num_processes > 1 else model.generate",
                            "accelerator.unwrap_model(model).generate")
    project.write({"infer.py": text})
    assert rows(project) == []  # nothing shows that prepare wrapped it (one process: no DDP)
    project.write({"run.sh": "accelerate launch --multi_gpu --num_processes 4 infer.py\n"})
    assert rows(project) == [11]


def test_a_prepared_model_that_trains_is_not_reported(project):
    project.write({"infer.py": source(train=(
        "opt = torch.optim.AdamW(model.parameters())\n"
        "    accelerator.backward(model(input_ids=ids, labels=ids).loss)\n    opt.step()"))})
    assert rows(project) == []


def test_an_optimizer_over_the_model_before_prepare_is_training(project):
    project.write({"infer.py": source(freeze="opt = torch.optim.AdamW(model.parameters())")})
    assert rows(project) == []


def test_a_frozen_model_is_not_wrapped(project):
    # prepare_model wraps only when some parameter requires grad
    project.write({"infer.py": source(freeze="model.requires_grad_(False)")})
    assert rows(project) == []


def test_deepspeed_or_fsdp_plugins_wrap_otherwise(project):
    for accel in ("deepspeed_plugin=plugin", "fsdp_plugin=plugin", "**kwargs"):
        project.write({"infer.py": source(accel=accel)})
        assert rows(project) == [], accel


def test_an_accelerate_launch_that_is_not_ddp_is_silent(project):
    project.write({"infer.py": source()})
    for line in ("accelerate launch --use_fsdp --num_processes 4 infer.py",
                 "accelerate launch --use_deepspeed --num_processes 4 infer.py",
                 "accelerate launch --num_processes 1 infer.py",
                 "accelerate launch --config_file missing.yaml infer.py"):
        project.write({"run.sh": line + "\n"})
        assert rows(project) == [], line


def test_a_receiver_that_is_no_accelerator_is_silent(project):
    project.write({"infer.py": source().replace("accelerator.prepare(", "helper.prepare(").replace(
        "    model.eval()\n", "    model.eval()\n    helper = object()\n")})
    assert rows(project) == []


ELSEWHERE = """import torch
from accelerate import Accelerator
from transformers import AutoModelForSeq2SeqLM


class Sampler:
    def __init__(self, accelerator: Accelerator):
        self.accelerator = accelerator

    def run(self):
        model = AutoModelForSeq2SeqLM.from_pretrained("t5-base")
        model = self.accelerator.prepare(model)
        ids = torch.ones(4, 8, dtype=torch.long, device=self.accelerator.device)
        with torch.no_grad():
            return model.module.generate(ids, max_new_tokens=16)
"""


def test_an_accelerator_built_elsewhere_needs_a_multi_gpu_launch(project):
    project.write({"sampler.py": ELSEWHERE})
    assert rows(project) == []  # its plugins are not known here
    project.write({"run.sh": "accelerate launch --multi_gpu --num_processes 8 sampler.py\n"})
    assert rows(project) == [12]
