"""`dslint lsp`: the language server entry point (the server itself is in `lsp_server.py`).

The CLI imports this module on every start to mount the command, so it stays tiny and pygls is
imported only when the server runs. pygls and lsprotocol are core dependencies; an environment
that lost one (a partial install) is told how to repair it.
"""
from __future__ import annotations

from .model import UsageError


def lsp_app() -> None:
    """Serve the Language Server Protocol on stdin/stdout (for editors; see the README)."""
    try:
        from .lsp_server import serve
    except ImportError as error:
        missing = (getattr(error, "name", None) or "").split(".")[0]
        if missing in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise UsageError(f"`dslint lsp` needs {missing}, which is missing from this environment: "
                             "pip install --force-reinstall dslint") from None
        raise
    serve()
