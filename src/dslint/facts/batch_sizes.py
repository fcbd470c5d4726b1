"""The batch sizes a module writes, for a rule that depends on how large a batch gets (DSL403), also
across modules: a helper that builds an inference engine is judged by the batches its callers decode."""
from __future__ import annotations

import ast
from typing import Optional

from .bindings import semantic_model
from .program_callers import _callers
from .script import ScriptFacts
from .summary import summary_extractor
from .values import argparse_defaults, constant


def largest_batch_size(facts: ScriptFacts) -> Optional[int]:
    """The largest batch the module writes: a `batch_size=` argument, a `--batch_size` default,
    `[prompt] * n` (report 2's shape), each through bindings. Memoised on the facts."""
    return facts.derived("largest_batch", _largest)


def _largest(facts: ScriptFacts) -> Optional[int]:
    model = semantic_model(facts)
    sizes = [constant(model, site.keyword("batch_size")) for site in facts.calls]
    sizes += [constant(model, default) for dest, default in argparse_defaults(model).items() if "batch" in dest]
    for node, _ in facts.of_type(ast.BinOp):
        if isinstance(node.op, ast.Mult) and (isinstance(node.left, ast.List) or isinstance(node.right, ast.List)):
            sizes.append(constant(model, node.right if isinstance(node.left, ast.List) else node.left))
    return max((s for s in sizes if isinstance(s, int) and not isinstance(s, bool)), default=None)


@summary_extractor("largest_batch")
def largest_batch(facts: ScriptFacts) -> Optional[int]:
    """`largest_batch_size` of a module that calls project functions (the others call no helper)."""
    if "batch" not in facts.text or not facts.imports.project_names():
        return None
    return largest_batch_size(facts)


def callers_largest_batch(project, path: str, function: str, at_least: int) -> Optional[tuple[int, str]]:
    """(batch, the module's display path) of the first other module that imports `function` of `path` and
    writes a batch of at least `at_least`; None when none does."""
    for other, _, called, uncalled in _callers(project.program, path, function):
        summary = project.scripts.get(other)
        batch = summary.extra.get("largest_batch") if summary is not None and (called or uncalled) else None
        if isinstance(batch, int) and batch >= at_least:
            return batch, project.program.display.get(other, other)
    return None
