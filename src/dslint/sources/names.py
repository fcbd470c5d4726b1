"""Qualified names: the import-alias table and the canonical spelling of framework symbols.

`import torch.distributed as dist; dist.init_process_group()` and
`from torch.distributed import init_process_group as ipg; ipg()` must resolve to the same
name, and the public re-exports of a symbol (``lightning.Trainer``,
``pytorch_lightning.Trainer``, ``lightning.pytorch.trainer.trainer.Trainer``) to one spelling.
"""
from __future__ import annotations

import ast
import functools
import sys

# Namespace prefixes that are the same package under another name (longest first).
_PREFIX_ALIASES: tuple[tuple[str, str], ...] = (
    ("pytorch_lightning.", "lightning.pytorch."),
    ("lightning_fabric.", "lightning.fabric."),
    ("torch.nn.parallel.distributed.", "torch.nn.parallel."),
    ("torch.utils.data.dataloader.", "torch.utils.data."),
    ("torch.utils.data.distributed.", "torch.utils.data."),
    ("torch.multiprocessing.spawn.", "torch.multiprocessing."),
    ("torch.distributed.distributed_c10d.", "torch.distributed."),
    ("lightning.pytorch.trainer.trainer.", "lightning.pytorch."),
    ("lightning.pytorch.strategies.deepspeed.", "lightning.pytorch.strategies."),
    ("lightning.pytorch.strategies.ddp.", "lightning.pytorch.strategies."),
    ("lightning.fabric.fabric.", "lightning.fabric."),
    ("transformers.trainer.", "transformers."),
    ("transformers.training_args.", "transformers."),
    ("accelerate.accelerator.", "accelerate."),
    ("deepspeed.runtime.engine.", "deepspeed."),
)

# Top-level re-exports: `lightning.Trainer` is `lightning.pytorch.Trainer`, etc.
_EXACT_ALIASES: dict[str, str] = {
    "lightning.Trainer": "lightning.pytorch.Trainer",
    "lightning.LightningModule": "lightning.pytorch.LightningModule",
    "lightning.LightningDataModule": "lightning.pytorch.LightningDataModule",
    "lightning.Callback": "lightning.pytorch.Callback",
    "lightning.Fabric": "lightning.fabric.Fabric",
    "torch.nn.DataParallel": "torch.nn.parallel.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.parallel.DataParallel",
    "torch.utils.data.distributed.DistributedSampler": "torch.utils.data.DistributedSampler",
    "torch.distributed.run": "torch.distributed.run",
    "deepspeed.runtime.zero.Init": "deepspeed.zero.Init",
    "deepspeed.comm.init_distributed": "deepspeed.init_distributed",
    "lightning.pytorch.utilities.rank_zero.rank_zero_only": "lightning.pytorch.utilities.rank_zero_only",
    "lightning.fabric.utilities.rank_zero.rank_zero_only": "lightning.pytorch.utilities.rank_zero_only",
    "lightning.fabric.utilities.rank_zero_only": "lightning.pytorch.utilities.rank_zero_only",
}


@functools.lru_cache(maxsize=8192)
def canonical(name: str) -> str:
    """The one spelling dslint uses for a qualified name (memoised: scripts repeat their names)."""
    for old, new in _PREFIX_ALIASES:
        if name.startswith(old):
            name = new + name[len(old):]
            break
    return _EXACT_ALIASES.get(name, name)


class ImportTable:
    """Local names bound by imports anywhere in a module, mapped to qualified names.

    Imports inside functions count too: real scripts import torch inside `main()`. A name
    rebound by a later import keeps its first binding (rare; good enough for linting).
    """

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.modules: set[str] = set()  # every module imported, for "does this use X"
        self.relative: set[str] = set()  # local names bound by relative imports (`from .utils import f`)
        self.star = False  # the module has a `from X import *`
        self._project: frozenset | None = None

    def project_names(self) -> frozenset:
        """The local names bound by imports of project modules (relative ones, and absolute ones of no
        library), memoised: asked for every call site."""
        if self._project is None:
            self._project = frozenset(self.relative | {local for local, qualname in self.names.items()
                                                       if not is_library(qualname)})
        return self._project

    def add(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.modules.add(alias.name)
                if alias.asname:
                    self.names.setdefault(alias.asname, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    self.names.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom) and node.level:
            self.star = self.star or any(alias.name == "*" for alias in node.names)
            self.relative.update(alias.asname or alias.name for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            self.modules.add(node.module)
            for alias in node.names:
                if alias.name == "*":
                    self.star = True
                    continue
                self.names.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")

    def bind_starred_torch(self, tree: ast.Module) -> None:
        """`torch` read in a module that binds it only through `from utils import *` (whose chain
        imports torch): the star import is what binds it, or the module could not run."""
        if not self.star or "torch" in self.names:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "torch" and not isinstance(node.ctx, ast.Load):
                return  # bound some other way (`torch = None`)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "torch":
                return
        self.names["torch"] = "torch"
        self.modules.add("torch")

    def uses(self, package: str) -> bool:
        prefix = package + "."
        return any(m == package or m.startswith(prefix) for m in self.modules)

    def resolve(self, expr: ast.AST) -> str | None:
        """Qualified, canonical name of a Name/Attribute chain rooted in an import, else None."""
        root, attributes = attribute_chain(expr)
        base = self.names.get(root.id) if root is not None else None
        if base is None:
            return None
        return canonical(".".join((base, *attributes)))


def attribute_chain(expr: ast.AST) -> tuple[ast.Name | None, tuple[str, ...]]:
    """`a.b.c` → (the Name `a`, ("b", "c")); (None, ()) when the chain does not start at a Name."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None, ()
    return expr, tuple(reversed(parts))


def dotted(expr: ast.AST) -> str | None:
    """`self.model.module` for a Name/Attribute chain, else None."""
    root, attributes = attribute_chain(expr)
    return ".".join((root.id, *attributes)) if root is not None else None


def root_name(expr: ast.AST) -> ast.Name | None:
    """The Name a Name/Attribute chain starts from (`utils` in `utils.dist.setup`), else None."""
    return attribute_chain(expr)[0]


# Packages whose functions the program layer never resolves (with the standard library): a name
# imported from one is never a project module's function, constant or config.
LIBRARIES = frozenset(("torch", "deepspeed", "accelerate", "lightning", "pytorch_lightning", "transformers", "numpy",
                       "wandb", "tqdm", "datasets", "megatron", "apex", "PIL", "cv2", "scipy", "pandas", "mpi4py",
                       "hjson", "yaml", "omegaconf", "hydra"))


def last_name(expr: ast.AST) -> str | None:
    """The name a call, attribute or name ends in (`f` of `a.b.f(...)`), or None."""
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def is_library(qualname: str) -> bool:
    """Is the module (or a name in it) a library's (LIBRARIES, the standard library), not the project's?"""
    root = qualname.lstrip(".").split(".", 1)[0]
    return root in LIBRARIES or root in sys.stdlib_module_names
