"""The JSON-RPC layer of `dslint lsp`, hardened against a broken client (pygls does the rest).

Left alone, pygls answers a request whose params do not fit the LSP types with nothing (the
editor waits forever), pops up "Error in server" for every unreadable frame, writes tracebacks
to stderr (the editor's log), and dies on a `Content-Length` too large to allocate. Here:
a request that cannot be read gets an error response; anything else unreadable is one log line;
stderr gets one line per record; and the frame reader finds the next header again after a
frame that lied about its length (what it swallowed meanwhile is lost: see `FrameReader`).
"""
from __future__ import annotations

import json
import logging
import re
import sys
from typing import Any, Optional

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

READ_CHUNK = 1 << 20  # a body is read in pieces: a claimed length costs only the bytes that come
_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?\Z", re.IGNORECASE)


def log_line(server, text: str, kind: types.MessageType = types.MessageType.Error) -> None:
    """One `window/logMessage` line (never a traceback)."""
    server.window_log_message(types.LogMessageParams(type=kind, message=f"dslint: {one_line(text)}"))


def one_line(text: str, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def report_server_error(server, error: Exception, source: Any) -> None:
    """pygls's out-of-band errors: an unreadable frame, a failing notification handler."""
    if source is FeatureRequestError:
        return  # the request's error response already says it
    if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):  # the frame loop's json.loads
        log_line(server, f"ignored a message from the editor that is not JSON in UTF-8: {type(error).__name__}: {error}")
    else:
        log_line(server, f"internal error while handling a message from the editor: {type(error).__name__}: {error}; please report it")


class _Unreadable:
    """A JSON-RPC message that decoded as JSON but that the LSP types refuse."""

    def __init__(self, data: dict, error: JsonRpcException):
        self.id, self.method, self.error = data.get("id"), data.get("method"), error
        self.is_request = "method" in data and _is_id(self.id)  # (a response must not be answered)


class DslintProtocol(LanguageServerProtocol):
    """pygls's protocol; a message it cannot structure is answered (request) or logged, not dropped."""

    def structure_message(self, data: dict) -> Any:
        if "jsonrpc" in data and not isinstance(data.get("method", ""), str):
            return _Unreadable(data, JsonRpcInvalidRequest())
        if "method" in data and "params" not in data and self.get_message_type(data["method"]) is None:
            data = {**data, "params": None}  # params may be omitted; pygls's generic types want them
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            return _Unreadable(data, error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Unreadable):
            detail = _why(message.error)
            if message.is_request:
                error = message.error.to_response_error()
                error.message = one_line(f"{error.message}: {detail}" if detail else error.message)
                self._send_response(message.id, None, error)
            else:
                what = message.method if isinstance(message.method, str) else "a message"
                log_line(self._server, f"ignored {what} from the editor: {message.error}{': ' + detail if detail else ''}")
            return
        if not hasattr(message, "jsonrpc"):  # JSON, but not a JSON-RPC object: no id to answer
            log_line(self._server, f"ignored a message from the editor that is not a JSON-RPC object: "
                                   f"{type(message).__name__}")
            return
        super().handle_message(message)


def _is_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _why(error: JsonRpcException) -> str:
    """What cattrs said about the params, in its own words ("required field missing @ $.text")."""
    cause = error.__cause__
    if cause is None:
        return ""
    try:
        from cattrs import transform_error

        return "; ".join(transform_error(cause))[:300]
    except Exception:  # not a cattrs validation error
        return f"{type(cause).__name__}: {cause}"


class FrameReader:
    """stdin for pygls's frame loop (it calls `readline` for headers and `read(n)` for a body).

    A `Content-Length` header is accepted in any case, with any blanks and a bare `\\n`; a header
    that follows junk on the same line (the rest of a frame shorter than it claimed, or a frame
    without a header: its body runs into the next header) is handed over on its own, so the next
    frame is read. Not recoverable: a frame longer than it claims swallows the start of the next
    one(s), which are lost; a length the client never sends makes the server wait for those bytes,
    idle, until the client sends them or closes the stream (then it exits).
    """

    def __init__(self, stream):
        self.stream = stream
        self._pending = b""

    def readline(self) -> bytes:
        while True:
            line, self._pending = (self._pending or self.stream.readline()), b""
            match = _HEADER.search(line)
            if match is None:
                return line
            junk = line[:match.start()]
            if junk.strip():
                self._pending = line[match.start():]
                return junk + b"\n"  # not blank, not a header: pygls skips it
            return b"Content-Length: %d\r\n" % int(match.group(1))

    def read(self, size: int) -> bytes:
        parts, left = [], size
        while left > 0:
            chunk = self.stream.read(min(left, READ_CHUNK))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        first = record.getMessage().split("\n", 1)[0]
        return one_line(f"{record.name}: {record.levelname.lower()}: {first}", 500)


def log_to_stderr_in_one_line(stream: Optional[Any] = None) -> None:
    """Warnings and errors (pygls's included) on stderr, one line each, without tracebacks."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_OneLine())
    logging.getLogger().addHandler(handler)
