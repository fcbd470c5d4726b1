"""The program layer: imports resolved to project files, entry points, programs, symbols."""
from __future__ import annotations

from dslint.facts.module_summary import ClassSummary, FunctionSummary, ImportRef, ModuleExports
from dslint.facts.program import ProgramIndex, Symbol, class_epoch_loops


def module(*imports, main=False, functions=(), classes=(), selects_device=False):
    return ModuleExports(imports=list(imports), main_guard=main,
                         functions={f.name: f for f in functions}, classes={c.name: c for c in classes},
                         selects_device=selects_device)


def from_import(module_name, *names, level=0):
    return ImportRef(module_name, level, tuple((n, n) for n in names), None, 1)


def plain_import(module_name, local=None):
    return ImportRef(module_name, 0, (), local or module_name.split(".")[0], 1)


def test_absolute_import_prefers_the_file_beside_the_script():
    index = ProgramIndex({
        "tools/train.py": module(from_import("utils", "setup"), main=True),
        "tools/utils.py": module(functions=[FunctionSummary("setup", 1)]),
        "utils.py": module(functions=[FunctionSummary("setup", 1)]),
    })
    assert index.module_file("tools/train.py", "utils") == "tools/utils.py"
    assert index.symbol("tools/train.py", "setup").path == "tools/utils.py"


def test_same_basename_in_two_packages_resolves_by_the_dotted_path():
    index = ProgramIndex({
        "tasks/__init__.py": module(),
        "tasks/main.py": module(),
        "tools/retro/__init__.py": module(),
        "tools/retro/main.py": module(),
        "tools/__init__.py": module(),
        "run.py": module(from_import("tools.retro.main", "x"), main=True),
    })
    assert index.module_file("run.py", "tools.retro.main") == "tools/retro/main.py"
    assert index.module_file("run.py", "tasks.main") == "tasks/main.py"
    assert index.module_file("run.py", "main") is None  # two folders hold a main.py, neither beside run.py
    assert index.module_file("run.py", "torch.nn") is None


def test_relative_import_from_a_package():
    index = ProgramIndex({
        "pkg/__init__.py": module(),
        "pkg/train.py": module(from_import("data", "make_loader", level=1)),
        "pkg/data.py": module(functions=[FunctionSummary("make_loader", 3, loader_sampler="none")]),
    })
    assert index.module_file("pkg/train.py", "data", 1) == "pkg/data.py"
    assert index.symbol("pkg/train.py", "make_loader").function.loader_sampler == "none"


def test_reexport_through_package_init_is_followed():
    index = ProgramIndex({
        "lib/__init__.py": module(from_import("loaders", "make_loader", level=1)),
        "lib/loaders.py": module(functions=[FunctionSummary("make_loader", 3)]),
        "train.py": module(from_import("lib", "make_loader"), main=True),
    })
    assert index.symbol("train.py", "make_loader").path == "lib/loaders.py"


def test_dotted_use_of_an_imported_module():
    index = ProgramIndex({
        "utils/__init__.py": module(),
        "utils/dist.py": module(functions=[FunctionSummary("setup_device", 2, selects_device=True)]),
        "a.py": module(plain_import("utils.dist"), main=True),
        "b.py": module(plain_import("utils.dist", "ud"), main=True),
        "c.py": module(from_import("utils", "dist"), main=True),
    })
    assert index.symbol("a.py", "utils.dist.setup_device").name == "setup_device"
    assert index.symbol("b.py", "ud.setup_device").name == "setup_device"
    assert index.symbol("c.py", "dist.setup_device").name == "setup_device"


def test_device_selected_by_a_helper_module_counts_for_the_whole_program():
    index = ProgramIndex({
        "train.py": module(from_import("utils.dist", "setup_device"), main=True),
        "utils/__init__.py": module(),
        "utils/dist.py": module(selects_device=True),
        "export.py": module(main=True),
    })
    assert index.selects_device_anywhere("train.py")
    assert not index.selects_device_anywhere("export.py")


def test_a_shared_module_runs_in_every_program_that_reaches_it():
    index = ProgramIndex({
        "train.py": module(from_import("common", "f"), main=True),
        "evaluate.py": module(from_import("common", "f"), main=True),
        "common.py": module(),
    })
    assert index.programs_of("common.py") == ["evaluate.py", "train.py"]
    assert index.programs_of("train.py") == ["train.py"]


def test_import_cycle_terminates():
    index = ProgramIndex({
        "a.py": module(from_import("b", "f"), main=True),
        "b.py": module(from_import("a", "g")),
    })
    assert index.closure("a.py") == {"a.py", "b.py"}
    assert index.symbol("a.py", "f") is None


def test_epoch_loop_in_one_method_over_a_call_of_another():
    span = object()
    run = FunctionSummary("run", 10, params=("self",), looped_calls=(("self._train_epoch", span, "self.epochs"),))
    epoch = FunctionSummary("_train_epoch", 15, params=("self",), iterated=("self.loader",))
    init = FunctionSummary("__init__", 5, params=("self", "model", "loader"))
    trainer = ClassSummary("Trainer", 4, methods={"__init__": init, "run": run, "_train_epoch": epoch},
                           init_stores={"loader": "self.loader", "model": "self.model"})
    symbol = Symbol("trainer.py", "Trainer", klass=trainer)
    found = class_epoch_loops([symbol])
    assert found.init is symbol and found.modules == {"trainer.py"}
    assert found.stored_params() == {"loader": ((symbol, "run", span, "self.epochs"), "self.loader")}
    assert init.param_for(1, None, method=True) == "loader"
    assert init.param_for(None, "loader", method=True) == "loader"


def test_epoch_loop_of_a_base_over_an_attribute_a_mixin_iterates():
    span = object()
    base = ClassSummary("Base", 1, methods={
        "__init__": FunctionSummary("__init__", 2, params=("self", "loader")),
        "fit": FunctionSummary("fit", 5, params=("self",), looped_calls=(("self.epoch", span, "e"),))},
        init_stores={"loader": "self.loader"})
    mixin = ClassSummary("Loop", 1, methods={"epoch": FunctionSummary("epoch", 2, params=("self",),
                                                                        iterated=("self.loader",))})
    joined = ClassSummary("Trainer", 1)
    lineage = [Symbol("t.py", "Trainer", klass=joined), Symbol("m.py", "Loop", klass=mixin),
               Symbol("b.py", "Base", klass=base)]
    found = class_epoch_loops(lineage)
    assert found.init is lineage[2] and found.modules == {"t.py", "m.py", "b.py"}
    assert found.stored_params() == {"loader": ((lineage[2], "fit", span, "e"), "self.loader")}


def test_a_function_is_referenced_only_by_imports_that_resolve_to_its_module():
    index = ProgramIndex({
        "train_ds.py": module(functions=[FunctionSummary("load_checkpoint", 3)], main=True),
        "train.py": module(functions=[FunctionSummary("load_checkpoint", 3)], main=True),
        "tests/test_train.py": module(from_import("train", "load_checkpoint")),
    })
    assert index.referenced_elsewhere("train.py", "load_checkpoint")
    assert not index.referenced_elsewhere("train_ds.py", "load_checkpoint")


def test_a_function_is_referenced_through_a_module_alias_or_a_package_reexport():
    def calls(*names):
        exports = module(main=True)
        exports.called = names
        return exports

    base = {"utils/__init__.py": module(from_import("ckpt", "load", level=1)), "utils/ckpt.py": module(),
            "other.py": module()}
    aliased = ProgramIndex({**base, "train.py": _with(calls("ck.load"), plain_import("utils.ckpt", "ck"))})
    assert aliased.referenced_elsewhere("utils/ckpt.py", "load")
    assert not aliased.referenced_elsewhere("other.py", "load")
    reexported = ProgramIndex({**base, "train.py": module(from_import("utils", "load"), main=True)})
    assert reexported.referenced_elsewhere("utils/ckpt.py", "load")


def _with(exports, *imports):
    exports.imports = list(imports)
    return exports


def test_a_field_default_of_a_class_another_module_defines():
    config = ClassSummary("TrainConfig", 4, field_defaults={"device": "cuda:0", "num_workers": 12})
    index = ProgramIndex({
        "train.py": module(from_import("exp.config", "TrainConfig"), main=True),
        "exp/__init__.py": module(),
        "exp/config.py": module(classes=[config]),
    })
    value, symbol = index.field_default("train.py", "TrainConfig", "num_workers")
    assert (value, symbol.path) == (12, "exp/config.py")
    assert index.field_default("train.py", "Missing", "num_workers") == (None, None)


def test_lineages_through_a_mixin_are_those_of_the_classes_built_on_it_own_first():
    mixin = ClassSummary("StepMixin", 1)
    trainer = ClassSummary("LMTrainer", 1, bases=("StepMixin",))
    other = ClassSummary("Other", 1)
    index = ProgramIndex({
        "engine/step.py": module(classes=[mixin]),
        "engine/trainer.py": module(from_import("step", "StepMixin", level=1), classes=[trainer]),
        "engine/other.py": module(classes=[other]),
    })
    found = [[(s.path, s.name) for s in lineage] for lineage in index.lineages_through("engine/step.py", "StepMixin")]
    assert found == [[("engine/step.py", "StepMixin")],
                     [("engine/trainer.py", "LMTrainer"), ("engine/step.py", "StepMixin")]]
    assert index.lineages_through("engine/other.py", "Missing") == []
