"""The engine: discover -> parse -> facts -> rules -> link -> setup rules -> filter, and the fix loop.

One parse per file, shared by all rules (checkers.py); files checked in a fork pool for large
trees (parallel.py); per-file results cached by content (cache.py); the project phase links
the files and runs the setup rules and deciders (project.py); `check` is the whole flow
(pipeline.py); `fix` is the fix loop (fixloop.py); `noqa` is read and applied in suppression.py.
"""
from ..sources.discover import discover
from .checkers import FRAMEWORK_WORDS, check_file, drop_caches, read_text
from .fixloop import FixOutcome, fix, write_atomic
from .parallel import check_files
from .pipeline import check
from .project import build_project, run_setup_rules
from .results import INTERNAL_ERROR, SYNTAX_ERROR, UNREADABLE, CheckResult, FileResult

__all__ = ["FRAMEWORK_WORDS", "INTERNAL_ERROR", "ResultCache", "discover", "SYNTAX_ERROR", "UNREADABLE", "CheckResult", "FileResult", "FixOutcome", "build_project",
           "check", "check_file", "check_files", "drop_caches", "fix", "read_text", "run_setup_rules", "write_atomic"]


def __getattr__(name: str):
    # the cache (sqlite3, pickle) is imported by the runs that use one
    if name == "ResultCache":
        from .cache import ResultCache

        return ResultCache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
