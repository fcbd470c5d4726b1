"""`dslint lsp` under faults, at the protocol level: the real server process fed raw bytes.

A tiny framed client (no pytest-lsp: it would refuse to send what a broken client sends).
Every case ends with proof that the server still answers a request and still publishes
diagnostics for a good file.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional

import pytest

pytest.importorskip("pygls")

TRAIN = '''import torch
import torch.distributed as dist

dist.init_process_group(backend="nccl")
state = torch.load("ckpt.pt")
'''
TIMEOUT = 15.0


class FramedClient:
    """The server process, with `Content-Length` frames both ways; notifications in a list."""

    def __init__(self, root: Path):
        self.root = root
        self.proc = subprocess.Popen([sys.executable, "-m", "dslint", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root)
        self.responses: dict = {}
        self.notifications: list[dict] = []
        self.stderr: list[str] = []
        self.changed = threading.Condition()
        self._next_id = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            if "method" in message and "id" in message:  # a request from the server: say yes
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            with self.changed:
                if "method" in message:
                    self.notifications.append(message)
                else:
                    self.responses[message.get("id")] = message
                self.changed.notify_all()

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: object) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: object) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def response(self, msg_id, timeout: float = TIMEOUT) -> dict:
        with self.changed:
            if not self.changed.wait_for(lambda: msg_id in self.responses, timeout):
                raise AssertionError(f"no response to request {msg_id!r} in {timeout} s; stderr: {''.join(self.stderr)[-2000:]}")
            return self.responses.pop(msg_id)

    def request(self, method: str, params: object, timeout: float = TIMEOUT) -> dict:
        msg_id = self.new_id()
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.response(msg_id, timeout)

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = TIMEOUT, since: int = 0) -> dict:
        """The first notification (from index `since`) that satisfies `predicate`."""
        found: list = []

        def seen() -> bool:
            found[:] = [n for n in self.notifications[since:] if predicate(n)]
            return bool(found)

        with self.changed:
            if not self.changed.wait_for(seen, timeout):
                raise AssertionError(f"no such notification in {timeout} s; stderr: {''.join(self.stderr)[-2000:]}")
        return found[0]

    def log_lines(self) -> list[str]:
        return [n["params"]["message"] for n in list(self.notifications)
                if n["method"] in ("window/logMessage", "window/showMessage")]

    def initialize(self) -> dict:
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {},
                                             "workspaceFolders": [{"uri": self.root.as_uri(), "name": "ws"}]})
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 10.0) -> Optional[int]:
        """shutdown + exit (when the stream still works); the exit status, or None if it had to be killed."""
        try:
            if self.proc.poll() is None:
                msg_id = self.new_id()
                self.send({"jsonrpc": "2.0", "id": msg_id, "method": "shutdown"})
                self.notify("exit", None)
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def open_doc(client: FramedClient, path: Path, text: str, language_id: str = "python", version: int = 1) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language_id,
                                                            "version": version, "text": text}})
    return uri


def diagnostics_of(client: FramedClient, uri: str, since: int = 0, predicate=lambda d: True,
                   timeout: float = TIMEOUT) -> list:
    message = client.wait_for(lambda n: n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
                              and predicate(n["params"]["diagnostics"]), timeout, since)
    return message["params"]["diagnostics"]


_alive_count = 0


def assert_alive(client: FramedClient, folder: Path) -> None:
    """The server answers a request and publishes DSL102 for a new good file."""
    global _alive_count
    _alive_count += 1
    uri = open_doc(client, folder / f"alive_{_alive_count}.py", TRAIN)
    found = diagnostics_of(client, uri, predicate=lambda ds: [d["code"] for d in ds] == ["DSL102"])
    answer = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found}})
    assert "error" not in answer, answer
    assert any(a["title"].startswith("dslint (DSL102)") for a in answer["result"])
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def assert_one_line_logs(client: FramedClient) -> None:
    lines = client.log_lines()
    assert not [m for m in lines if "\n" in m or "Traceback" in m], lines
    assert "Traceback (most recent call last)" not in "".join(client.stderr)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module: every case here leaves the stream readable."""
    root = tmp_path_factory.mktemp("faults")
    client = FramedClient(root)
    client.initialize()
    yield client
    assert client.close() == 0


@pytest.fixture
def folder(server, request):
    path = server.root / request.node.name.replace("[", "_").replace("]", "").replace("-", "_")
    path.mkdir()
    return path


# -- malformed JSON-RPC ------------------------------------------------------------------------

BAD_UTF8 = (b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {'
            b'"uri": "file:///tmp/bad_utf8.py", "languageId": "python", "version": 1, "text": "x = \xff\xfe"}}}')


@pytest.mark.parametrize("body", [b"hello", b"{'jsonrpc': 2", b"[1, 2]", b'"x"', b"null", b"5", b'{"id": 3}', BAD_UTF8],
                         ids=["not-json", "broken-json", "array", "string", "null", "number", "no-jsonrpc", "bad-utf8"])
def test_a_body_that_is_no_json_rpc_message_is_one_log_line(server, folder, body):
    since = len(server.notifications)
    server.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    said = server.wait_for(lambda n: n["method"] == "window/logMessage" and "ignored" in n["params"]["message"], since=since)
    assert said["params"]["message"].startswith("dslint: ignored a message from the editor that is not ")
    assert_alive(server, folder)
    assert not [n for n in server.notifications[since:] if n["method"] == "window/showMessage"]  # no popup
    assert_one_line_logs(server)


def test_an_unknown_method_gets_method_not_found(server, folder):
    answer = server.request("dslint/noSuchMethod", {"x": 1})
    assert answer["error"]["code"] == -32601
    server.send({"jsonrpc": "2.0", "id": "no-params", "method": "dslint/noSuchMethod"})  # params may be omitted
    assert server.response("no-params")["error"]["code"] == -32601  # before: no answer
    server.send({"jsonrpc": "2.0", "id": "odd-method", "method": [1], "params": {}})
    assert server.response("odd-method")["error"]["code"] == -32600  # before: no answer at all
    assert_alive(server, folder)


@pytest.mark.parametrize("params", [
    {"textDocument": 5, "range": {}, "context": {}},
    {"textDocument": {"uri": "file:///x.py"}, "context": {"diagnostics": []},
     "range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}},
    "not an object",
], ids=["textDocument-5", "negative-position", "string-params"])
def test_a_request_with_params_of_the_wrong_shape_gets_an_error_response(server, folder, params):
    answer = server.request("textDocument/codeAction", params, timeout=5)
    assert answer["error"]["code"] == -32602 and "\n" not in answer["error"]["message"]
    assert_alive(server, folder)
    assert_one_line_logs(server)


def test_a_notification_with_bad_params_is_one_log_line(server, folder):
    since = len(server.notifications)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": (folder / "t.py").as_uri(), "languageId": "python",
                                                            "version": 1}})  # no text
    said = server.wait_for(lambda n: n["method"] == "window/logMessage" and "didOpen" in n["params"]["message"], since=since)
    assert "required field missing" in said["params"]["message"]
    assert_alive(server, folder)
    assert not [n for n in server.notifications[since:] if n["method"] == "window/showMessage"]
    assert_one_line_logs(server)


# -- broken framing: a fresh server per case ---------------------------------------------------

SHUTDOWN = b'{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}'
PING = b'{"jsonrpc": "2.0", "id": %d, "method": "dslint/ping"}'  # answered: method not found
NOTE = b'{"jsonrpc": "2.0", "method": "$/noSuchNotification", "params": {}}'


def framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


BROKEN = {  # each followed by a good request, which must be answered
    "missing": b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + NOTE,  # its body runs into the next header
    "too-short": b"Content-Length: 10\r\n\r\n" + NOTE,
    "zero": b"Content-Length: 0\r\n\r\n" + NOTE,
    "lowercase": b"content-length:%d\r\n\r\n" % len(NOTE) + NOTE,  # spelled loosely
    "bare-lf": b"Content-Length: %d\n\n" % len(NOTE) + NOTE,
}


def test_the_next_frame_is_read_after_a_header_that_lied(tmp_path):
    """One server for every case: a case that lost the stream fails the ones after it too."""
    client = FramedClient(tmp_path)
    try:
        client.initialize()
        for number, (case, broken) in enumerate(BROKEN.items(), start=100):
            client.send_raw(broken + framed(PING % number))
            assert client.response(number, timeout=5)["error"]["code"] == -32601, case
        # longer than its body: the next frame is swallowed (not recoverable), the one after is read
        client.send_raw(b"Content-Length: %d\r\n\r\n" % (len(NOTE) + 30) + NOTE
                        + framed(PING % 98) + framed(SHUTDOWN))
        assert client.response(99, timeout=5)["result"] is None
        assert 98 not in client.responses
        client.notify("exit", None)
        assert client.proc.wait(5) == 0
    finally:
        client.close()


def test_a_length_never_sent_waits_idle_and_exits_when_the_stream_closes(tmp_path):
    client = FramedClient(tmp_path)
    try:
        client.initialize()
        client.send_raw(b"Content-Length: %d\r\n\r\n" % 10**20 + NOTE + framed(SHUTDOWN))
        time.sleep(0.2)
        before = cpu_seconds(client.proc.pid)
        time.sleep(0.8)
        assert cpu_seconds(client.proc.pid) - before < 0.3  # waiting for bytes, not spinning
        assert client.proc.poll() is None  # before: OverflowError, the server died with "internal error"
        client.proc.stdin.close()
        assert client.proc.wait(5) == 0
        assert "internal error" not in "".join(client.stderr)
    finally:
        client.close()


# -- bad positions -----------------------------------------------------------------------------

def _pos(line: int, character: int) -> dict:
    return {"line": line, "character": character}


def test_positions_outside_the_document_are_answered_and_the_next_lint_is_right(server, folder):
    uri = open_doc(server, folder / "train.py", TRAIN)
    diagnostics_of(server, uri, predicate=lambda ds: [d["code"] for d in ds] == ["DSL102"])
    for version, (start, end) in enumerate([(_pos(100, 0), _pos(200, 5)),  # past the end
                                            (_pos(3, 50), _pos(1, 0)),  # end before start
                                            (_pos(-1, 0), _pos(0, -5)),  # negative: refused, one log line
                                            (_pos(2**31, 0), _pos(2**31, 0))], start=2):
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"range": {"start": start, "end": end}, "text": "x = 1\n"}]})
    outside = {"start": _pos(999, 3), "end": _pos(1000, 0)}
    fix = {"applicability": "safe", "message": "m", "fixer": "add-map-location"}
    for data in [None, [1, 2], {"fix": [1]}, {"fix": {**fix, "params": 5}}, {"fix": {**fix, "params": [["row", "x"]]}},
                 {"fix": {**fix, "params": [["row", 999], ["column", 10**30]]}}, {"fix": {**fix, "fixer": "no-such"}}]:
        diagnostic = {"range": outside, "message": "m", "code": "DSL102", "source": "dslint", "data": data}
        answer = server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": outside,
                                                            "context": {"diagnostics": [diagnostic]}})
        assert "error" not in answer and isinstance(answer["result"], list), (data, answer)
    since = len(server.notifications)
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 10}, "contentChanges": [{"text": TRAIN}]})
    found = diagnostics_of(server, uri, since=since)
    assert [(d["code"], d["range"]["start"]) for d in found] == [("DSL102", _pos(4, 8))]
    assert_alive(server, folder)
    assert_one_line_logs(server)


# -- a huge document ---------------------------------------------------------------------------

def huge_python(lines: int = 75_000) -> str:
    """~5 MB: top-level statements (the shape where a fix window cannot shrink the file), 3 findings."""
    body = [f"value_{i} = compute(value_{max(0, i - 1)}, 'a fairly ordinary string here')\n" for i in range(lines)]
    body.insert(lines // 2, 'middle = torch.load("middle.pt")\n')
    return TRAIN + "".join(body) + 'last = torch.load("last.pt")\n'


def test_a_huge_document_is_linted_on_the_worker_and_the_server_stays_responsive(server, folder):
    text = huge_python()
    assert len(text) > 5_000_000
    since = len(server.notifications)
    started = time.perf_counter()
    uri = open_doc(server, folder / "big.py", text)
    answer = server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": _pos(0, 0), "end": _pos(0, 0)},
                                                        "context": {"diagnostics": []}})
    assert "error" not in answer
    answered = time.perf_counter()
    found = diagnostics_of(server, uri, since=since, timeout=60)
    published = time.perf_counter()
    assert [d["code"] for d in found] == ["DSL102"] * 3
    assert answered < published  # answered while it linted
    lint_line = server.wait_for(lambda n: n["method"] == "window/logMessage" and "linted" in n["params"]["message"], since=since)
    print(f"huge document: {len(text)} chars, {lint_line['params']['message']}, published after {published - started:.1f} s")
    # a quick fix would parse 5 MB with libcst (minutes, and before: on the event loop, which stopped
    # answering): the "ignore" action only, and one line that says why
    since = len(server.notifications)
    answer = server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": found[0]["range"],
                                                        "context": {"diagnostics": found[:1]}}, timeout=20)
    assert [a["title"] for a in answer["result"]] == ["dslint: ignore DSL102 on this line"]
    said = server.wait_for(lambda n: n["method"] == "window/logMessage" and "too large" in n["params"]["message"], since=since)
    assert said["params"]["message"].endswith("the limit is 500000): run `dslint fix` on it")
    answer = server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": found[0]["range"],
                                                        "context": {"diagnostics": [], "only": ["source.fixAll.dslint"]}}, timeout=20)
    assert answer["result"] == []
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert_alive(server, folder)


# -- a FIFO and a bad JSON file in the folder --------------------------------------------------

def test_a_fifo_and_a_bad_json_file_in_the_folder_do_not_stop_the_diagnostics(server, folder):
    os.mkfifo(folder / "x.py")
    bad_json = '{"train_batch_size": %s, "\\ud800": 1}' % ("9" * 5000)
    (folder / "bad.json").write_text(bad_json)
    (folder / "ds_config.json").write_text(bad_json)  # a name the folder walk reads as a DeepSpeed config
    since = len(server.notifications)
    uri = open_doc(server, folder / "train.py", TRAIN)
    assert [d["code"] for d in diagnostics_of(server, uri, since=since)] == ["DSL102"]
    # the bad file opened in the editor: diagnostics too (a list, whatever it holds), no crash
    bad = open_doc(server, folder / "bad.json", (folder / "bad.json").read_text(), language_id="json")
    diagnostics_of(server, bad, since=since)
    assert_alive(server, folder)
    assert not [m for m in server.log_lines()[since:] if "internal error" in m]
    assert_one_line_logs(server)
    for name in ("train.py", "bad.json"):
        server.notify("textDocument/didClose", {"textDocument": {"uri": (folder / name).as_uri()}})


# -- a lint that raises ------------------------------------------------------------------------

def test_a_folder_whose_settings_break_the_lint_loses_only_its_own_diagnostics(server, folder):
    """A real input that made the whole lint raise: a pyproject.toml with a 5,000-digit integer
    (tomllib's ValueError). One line for that folder; the other folder's documents still publish."""
    good_dir, bad_dir = folder / "good", folder / "bad"
    good_dir.mkdir()
    bad_dir.mkdir()
    (bad_dir / "pyproject.toml").write_text("[tool.dslint]\nline-length = %s\n" % ("9" * 5000))
    good = open_doc(server, good_dir / "train.py", TRAIN)
    diagnostics_of(server, good, predicate=lambda ds: [d["code"] for d in ds] == ["DSL102"])
    bad = open_doc(server, bad_dir / "train.py", TRAIN)
    since = len(server.notifications)
    # one lint of every folder: the watched-file event asks for all of them, the change for the good one
    server.notify("textDocument/didChange", {"textDocument": {"uri": good, "version": 2},
                                             "contentChanges": [{"text": TRAIN + 'again = torch.load("b.pt")\n'}]})
    server.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": (bad_dir / "pyproject.toml").as_uri(), "type": 2}]})
    diagnostics_of(server, good, since=since, predicate=lambda ds: [d["code"] for d in ds] == ["DSL102", "DSL102"])
    assert diagnostics_of(server, bad, since=since) == []
    said = server.wait_for(lambda n: "reading the settings" in n["params"].get("message", ""), since=since)
    assert said["params"]["message"].startswith("dslint: internal error while reading the settings for ")
    assert "ValueError: Exceeds the limit (4300 digits)" in said["params"]["message"]
    assert_one_line_logs(server)
    for uri in (good, bad):
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
