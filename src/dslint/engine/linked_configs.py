"""A doubtful JSON file (DeepSpeed's marker keys, and evidence of another kind of file: see
sources/not_deepspeed.py) that a setup links as its DeepSpeed config is one, whatever its keys.

The per-file phase cannot see links, so it leaves such a file aside with its parsed document;
here, once the project is built, the ones a setup's config link resolves to are checked as
configs and join the project. Nothing is done (not even linking) when no file is doubtful.
"""
from __future__ import annotations

from ..facts.setup import Project
from ..settings import Settings
from .results import FileResult


def check_linked_doubtful_configs(project: Project, results: list[FileResult], settings: Settings,
                                  edits=False) -> None:
    doubtful = {r.source.path: i for i, r in enumerate(results)
                if r.kind == "skipped" and getattr(r.summary, "doubtful", False)}
    if not doubtful:
        return
    from ..facts.link import link_setups
    from .checkers import check_config_doc, wants_edits

    for path, i in doubtful.items():  # (linking resolves config paths against this table)
        project.configs[path] = results[i].summary
    linked = {setup.config.path for setup in link_setups(project, settings) if setup.config is not None}
    for path, i in doubtful.items():
        if path not in linked:
            del project.configs[path]  # (no setup resolved to it: the links stay as they are)
            continue
        before = results[i]
        result = check_config_doc(before.source, before.summary, before.text, settings)
        wanted = [f for f in result.findings if wants_edits(f, settings, edits)] if edits else []
        if wanted:
            from ..fixes import attach_edits

            attach_edits(wanted, before.text, path)
        result.cache_key = before.cache_key
        results[i] = result
        project.texts[path] = before.text
