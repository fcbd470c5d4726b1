"""DSL303–DSL309 read names through bindings: rebinding, shadowing parameters, `self.x`, unpacking."""
from __future__ import annotations

import ast
import textwrap

from dslint.facts.bindings import SemanticModel
from dslint.facts.script import build_script_facts


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def found(project, text, select, name="train.py"):
    """(code, row) of each finding of `select` in one file."""
    project.write({name: src(text)})
    return [(f.code, f.span.start.row) for f in project.check(select=select).findings]


def fixed(project, text, select, name="train.py"):
    """The file after `fix --unsafe`; a second fix must change nothing."""
    project.write({name: src(text)})
    project.fix(select=select)
    first = project.read(name)
    project.fix(select=select)
    assert project.read(name) == first, "a second fix changed the file"
    return first


def row(text: str, line: str) -> int:
    """1-based row of the one line of `text` that contains `line`."""
    rows = [i for i, t in enumerate(src(text).splitlines(), 1) if line in t]
    assert len(rows) == 1, (line, rows)
    return rows[0]


# -- DSL305 ddp-for-inference --------------------------------------------------------------

SUMMARIZE = '''
    """Summarise a news corpus with a fine-tuned T5 on every GPU; each rank writes its own shard."""
    import argparse
    import json
    import os

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--articles", required=True)
        parser.add_argument("--out", required=True)
        parser.add_argument("--batch-size", type=int, default=32)
        args = parser.parse_args()

        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        dist.init_process_group("nccl")
        rank, world = dist.get_rank(), dist.get_world_size()

        tokenizer = AutoTokenizer.from_pretrained("ckpt/t5-base-news")
        model = AutoModelForSeq2SeqLM.from_pretrained("ckpt/t5-base-news", torch_dtype=torch.bfloat16).cuda()
        model = DistributedDataParallel(model, device_ids=[local_rank])

        with open(args.articles) as f:
            articles = [json.loads(line)["text"] for line in f][rank::world]
        os.makedirs(args.out, exist_ok=True)

        summaries = []
        with torch.inference_mode():
            for i in range(0, len(articles), args.batch_size):
                batch = tokenizer(articles[i : i + args.batch_size], return_tensors="pt", padding=True,
                                  truncation=True, max_length=1024).to("cuda")
                ids = model.module.generate(**batch, max_new_tokens=128, num_beams=4)
                summaries += tokenizer.batch_decode(ids, skip_special_tokens=True)

        with open(os.path.join(args.out, f"part-{rank:03d}.txt"), "w") as f:
            f.write("\\n".join(summaries))
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
'''


def test_ddp_rebound_to_the_same_name_and_used_only_for_generate_is_flagged(project):
    assert found(project, SUMMARIZE, ["DSL305"], "summarize.py") == [
        ("DSL305", row(SUMMARIZE, "model = DistributedDataParallel(model"))]


def test_removing_a_rebinding_wrapper_drops_its_line_hops_and_import_and_leaves_nothing_to_flag(project):
    out = fixed(project, SUMMARIZE, ["DSL305"], "summarize.py")
    assert out == src(SUMMARIZE).replace("from torch.nn.parallel import DistributedDataParallel\n", "") \
        .replace("    model = DistributedDataParallel(model, device_ids=[local_rank])\n", "") \
        .replace("model.module.generate", "model.generate")
    assert project.check().findings == []


def test_an_alias_import_still_used_elsewhere_stays(project):
    text = """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP


        def unwrap(model):
            return model.module if isinstance(model, DDP) else model  # keep the alias: used here


        def sample(model, ids, local_rank):
            # wrap for the multi-GPU run
            llm = DDP(model.cuda(), device_ids=[local_rank])
            with torch.no_grad():
                return llm.module.generate(ids)
    """
    assert found(project, text, ["DSL305"]) == [("DSL305", row(text, "llm = DDP("))]
    assert fixed(project, text, ["DSL305"]) == src(text).replace(
        "DDP(model.cuda(), device_ids=[local_rank])", "model.cuda()").replace("llm.module.generate", "llm.generate")


def test_dropped_wrapper_line_gives_its_comment_and_blank_line_to_the_next_statement(project):
    text = """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP


        def evaluate(model, loader, local_rank):
            model = model.cuda()

            # one replica per GPU
            model = DDP(model, device_ids=[local_rank])
            scores = []
            with torch.no_grad():
                for x in loader:
                    scores.append(model.module(x.cuda()).argmax(-1))
            return scores
    """
    assert found(project, text, ["DSL305"]) == [("DSL305", row(text, "model = DDP("))]
    assert fixed(project, text, ["DSL305"]) == src(text) \
        .replace("from torch.nn.parallel import DistributedDataParallel as DDP\n", "") \
        .replace("    model = DDP(model, device_ids=[local_rank])\n", "").replace("model.module(x", "model(x")


def test_a_model_trained_through_the_wrapper_is_quiet(project):
    assert found(project, """
        import torch
        from torch.nn.parallel import DistributedDataParallel
        from transformers import AutoModelForSeq2SeqLM


        def main(loader, local_rank):
            model = AutoModelForSeq2SeqLM.from_pretrained("t5-base").cuda()
            model = DistributedDataParallel(model, device_ids=[local_rank])
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            for step, batch in enumerate(loader):
                loss = model(**batch).loss
                loss.backward()
                opt.step()
                opt.zero_grad()
                if step % 100 == 0:
                    with torch.inference_mode():
                        model.module.generate(batch["input_ids"][:1], max_new_tokens=32)
    """, ["DSL305"]) == []


REUSED = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP


    def main(teacher, student, prompts, loader, local_rank):
        model = DDP(teacher.cuda(), device_ids=[local_rank])
        with torch.inference_mode():
            labels = [model.module.generate(p, max_new_tokens=64) for p in prompts]
        model = DDP(student.cuda(), device_ids=[local_rank])
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
        for batch, target in zip(loader, labels):
            loss = model(batch, labels=target).loss
            loss.backward()
            opt.step()
"""


def test_a_wrapper_name_reused_for_a_trained_model_keeps_the_two_apart(project):
    assert found(project, REUSED, ["DSL305"]) == [("DSL305", row(REUSED, "DDP(teacher"))]
    assert fixed(project, REUSED, ["DSL305"]) == src(REUSED).replace(
        "DDP(teacher.cuda(), device_ids=[local_rank])", "teacher.cuda()").replace("model.module.generate", "model.generate")


def test_uses_that_may_train_the_wrapper_are_quiet(project):
    assert found(project, """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        from engine import evaluate, fit


        def main(net, loader, local_rank):
            model = DDP(net.cuda(), device_ids=[local_rank])
            with torch.no_grad():
                evaluate(model.module, loader)  # the inner model escapes

        def finetune(net, loader, local_rank):
            model = DDP(net.cuda(), device_ids=[local_rank])
            with torch.no_grad():
                model.module.generate(next(iter(loader)))
            fit(model.module.train(), loader)
    """, ["DSL305"]) == []


def test_a_self_wrapper_in_a_training_file_is_quiet(project):
    # `runner.model` outside the class is a use `uses_of(self.model)` cannot see
    assert found(project, """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP


        class Runner:
            def __init__(self, net, local_rank):
                self.model = DDP(net.cuda(), device_ids=[local_rank])

            @torch.no_grad()
            def sample(self, ids):
                return self.model.module.generate(ids)


        def main(net, loader, local_rank):
            runner = Runner(net, local_rank)
            for x in loader:
                runner.model(x).sum().backward()
    """, ["DSL305"]) == []


def test_a_conditional_wrapper_is_flagged_without_a_fix(project):
    text = """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP


        def main(model, ids, args):
            if args.distributed:
                model = DDP(model, device_ids=[args.local_rank])
            with torch.inference_mode():
                return model.module.generate(ids)
    """
    project.write({"train.py": src(text)})
    (finding,) = project.check(select=["DSL305"]).findings
    assert (finding.span.start.row, finding.fix) == (row(text, "model = DDP("), None)


# -- DSL304 ddp-module-bypass --------------------------------------------------------------

SHADOWED_WRAPPER = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    net = torch.nn.Linear(8, 8).cuda()
    model = DDP(net, device_ids=[0])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)


    def step(x):
        loss = model.module(x).sum()
        loss.backward()
        opt.step()


    def step_plain(model, x):
        loss = model.module(x).sum()  # any module with a `module` child, not the DDP above
        loss.backward()
"""


def test_module_bypass_follows_the_binding_not_the_name(project):
    assert found(project, SHADOWED_WRAPPER, ["DSL304"]) == [("DSL304", row(SHADOWED_WRAPPER, "def step(x)") + 1)]


def test_wrapper_rebound_to_its_module_is_no_longer_the_wrapper(project):
    assert found(project, """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP


        def main(net, loader, opt, local_rank):
            model = DDP(net.cuda(), device_ids=[local_rank])
            for x in loader:
                model(x).sum().backward()
                opt.step()
            model = model.module  # single-GPU phase: `net` wraps its backbone as `.module`
            for x in loader:
                model.module(x).sum().backward()
                opt.step()
    """, ["DSL304"]) == []


SETUP_WRAPPER = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP


    class Trainer:
        def __init__(self, net):
            self.model = net

        def setup(self, local_rank):
            self.model = DDP(self.model.cuda(), device_ids=[local_rank])

        def train_step(self, x):
            loss = self.model.module(x).sum()
            loss.backward()
"""


def test_self_wrapper_set_in_setup_reaches_the_training_step(project):
    assert found(project, SETUP_WRAPPER, ["DSL304"]) == [("DSL304", row(SETUP_WRAPPER, "self.model.module(x)"))]
    assert fixed(project, SETUP_WRAPPER, ["DSL304"]) == src(SETUP_WRAPPER).replace("self.model.module(x)", "self.model(x)")


# -- DSL306 ddp-inside-deepspeed -----------------------------------------------------------

def test_deepspeed_given_the_wrapper_or_its_module(project):
    text = """
        import deepspeed
        from torch.nn.parallel import DistributedDataParallel as DDP


        def wrapped(args, net):
            model = DDP(net.cuda(), device_ids=[args.local_rank])
            engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=net.parameters())
            return engine


        def unwrapped(args, net):
            model = DDP(net.cuda(), device_ids=[args.local_rank])
            model = model.module
            engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=net.parameters())
            return engine
    """
    assert found(project, text, ["DSL306"]) == [("DSL306", row(text, "def wrapped") + 2)]


def test_a_parameter_that_shadows_a_module_level_wrapper_is_not_it(project):
    assert found(project, """
        import deepspeed
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        model = DDP(torch.nn.Linear(8, 8).cuda())


        def build(args, model):
            return deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    """, ["DSL306"]) == []


# -- DSL308 deepspeed-engine-bypass --------------------------------------------------------

SELF_ENGINE = """
    import deepspeed


    class Trainer:
        def __init__(self, args, net):
            self.engine, self.optimizer, _, self.scheduler = deepspeed.initialize(
                args=args, model=net, model_parameters=net.parameters())

        def train_step(self, batch):
            loss = self.engine(batch)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
"""


def test_engine_and_optimizer_unpacked_onto_self_in_init_reach_the_step_method(project):
    assert found(project, SELF_ENGINE, ["DSL308"]) == [("DSL308", row(SELF_ENGINE, "loss.backward()")),
                                                      ("DSL308", row(SELF_ENGINE, "self.optimizer.step()"))]
    assert fixed(project, SELF_ENGINE, ["DSL308"]) == src(SELF_ENGINE) \
        .replace("loss.backward()", "self.engine.backward(loss)").replace("self.optimizer.step()", "self.engine.step()")


def test_unpack_index_tells_the_optimizer_from_the_scheduler(project):
    text = """
        import deepspeed


        def train(args, net, loader):
            engine, optimizer, _, scheduler = deepspeed.initialize(args=args, model=net,
                                                                   model_parameters=net.parameters())
            for batch in loader:
                loss = engine(batch)
                loss.backward()
                optimizer.step()
                scheduler.step()
    """
    assert found(project, text, ["DSL308"]) == [("DSL308", row(text, "loss.backward()")),
                                               ("DSL308", row(text, "optimizer.step()"))]


def test_an_optimizer_parameter_of_another_function_is_not_the_engines(project):
    assert found(project, """
        import deepspeed


        def probe(optimizer, loss):
            loss.backward()
            optimizer.step()


        def train(args, net, loader):
            engine, optimizer, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())
            for batch in loader:
                engine.backward(engine(batch))
                engine.step()
    """, ["DSL308"]) == []


# -- DSL309 distributed-sampler-with-accelerate --------------------------------------------

def test_a_loader_parameter_that_shadows_a_module_level_loader_is_not_it(project):
    text = """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader, DistributedSampler

        accelerator = Accelerator()
        dataset = list(range(1000))
        loader = DataLoader(dataset, batch_size=16, sampler=DistributedSampler(dataset))  # the torchrun path


        def main(model, loader):
            return accelerator.prepare(model, loader)


        def main_torchrun(model):
            return accelerator.prepare(model, loader)
    """
    assert found(project, text, ["DSL309"]) == [("DSL309", row(text, "sampler=DistributedSampler(dataset)"))]


def test_sampler_through_a_helper_and_a_rebound_name(project):
    text = """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader, DistributedSampler

        accelerator = Accelerator()


        def build_loader(dataset):
            def collate(batch):
                return batch
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, batch_size=16, sampler=sampler, collate_fn=collate)
            return loader


        def build_plain(dataset):
            sampler = DistributedSampler(dataset)
            sampler = None  # let Accelerate shard it
            return DataLoader(dataset, batch_size=16, sampler=sampler, shuffle=True)


        train_loader = accelerator.prepare(build_loader(list(range(100))))
        eval_loader = accelerator.prepare(build_plain(list(range(100))))
    """
    assert found(project, text, ["DSL309"]) == [("DSL309", row(text, "sampler=sampler, collate_fn"))]


# -- DSL303 unsynchronised-model -----------------------------------------------------------

OPTIMIZER_PARAMETER = """
    import torch
    import torch.distributed as dist

    dist.init_process_group("nccl")
    model = torch.nn.Linear(8, 8).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


    def train_epoch(model, optimizer, loader):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()  # whatever optimizer the caller built
"""


def test_an_optimizer_parameter_that_shadows_a_plain_optimizer_is_not_known_to_be_plain(project):
    assert found(project, OPTIMIZER_PARAMETER, ["DSL303"]) == []


def test_the_module_level_plain_optimizer_stepped_is(project):
    text = OPTIMIZER_PARAMETER + """
    for _ in range(10):
        model(torch.randn(4, 8, device="cuda")).sum().backward()
        optimizer.step()
"""
    assert found(project, text, ["DSL303"]) == [("DSL303", row(text, "model(x).sum().backward()"))]


# -- DSL307 lightning-module-wraps-ddp -----------------------------------------------------

def test_a_local_name_that_shadows_the_ddp_import_is_not_ddp(project):
    text = """
        import lightning as L
        import torch
        from torch.nn.parallel import DistributedDataParallel


        class Lit(L.LightningModule):
            def configure_model(self):
                DistributedDataParallel = torch.nn.Sequential  # a local stand-in
                self.net = DistributedDataParallel(torch.nn.Linear(8, 8))

            def setup(self, stage):
                self.head = DistributedDataParallel(torch.nn.Linear(8, 8))
    """
    assert found(project, text, ["DSL307"]) == [("DSL307", row(text, "self.head = DistributedDataParallel"))]


# -- the facts the rules read (facts/bindings.py) ----------------------------------------------

def _model(text: str):
    text = src(text)
    tree = ast.parse(text)
    return SemanticModel(build_script_facts("train.py", text, tree)), tree


def test_parent_of_gives_the_node_that_holds_a_use():
    model, tree = _model("""
        ddp = wrap(net)
        out = ddp.module.generate(ids)
    """)
    (binding,) = model.reaching("ddp", tree.body[1].value)
    (use,) = model.uses_of(binding)
    hop = model.parent_of(use)
    assert (type(hop).__name__, hop.attr) == ("Attribute", "module")
    assert model.parent_of(model.parent_of(hop)) is tree.body[1].value  # generate(...) holds .generate
    assert model.parent_of(tree.body[0]) is tree and model.parent_of(tree) is None


def test_binding_of_a_self_attribute_is_the_assignment_its_method_sees():
    model, tree = _model("""
        class Trainer:
            def __init__(self, net):
                self.model = net

            def setup(self):
                self.model = DDP(self.model)

            def step(self, x, other):
                return self.model(x), other.model, self.model[0]
    """)
    step = tree.body[0].body[2]
    mine, theirs, subscript = step.body[0].value.elts
    assert model.binding_of(mine.func).value is tree.body[0].body[1].body[0].value
    assert model.binding_of(theirs) is None and model.binding_of(subscript) is None
