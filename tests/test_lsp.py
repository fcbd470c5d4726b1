"""`dslint lsp` end to end: the real server process, driven by pytest-lsp's client."""
from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
import pytest_asyncio

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, LanguageClient, register_lsp_features  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

TRAIN = '''import torch
import torch.distributed as dist

dist.init_process_group(backend="nccl")
state = torch.load("ckpt.pt")
'''
TRAIN_FIXED = TRAIN.replace('torch.load("ckpt.pt")', 'torch.load("ckpt.pt", map_location="cpu")')
CLEAN = '''import torch
import torch.distributed as dist

dist.init_process_group(backend="nccl")
'''


def _client_factory() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics in order (with its version)."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    client.registrations = []

    def register_capability(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # as VS Code does, which offers dynamic registration

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                                   types.CLIENT_REGISTER_CAPABILITY: register_capability})
    return client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory):
    """One server process for the module (it takes seconds to start); each test gets its own folder."""
    root = tmp_path_factory.mktemp("workspace")
    config = ClientServerConfig(server_command=[sys.executable, "-m", "dslint", "lsp"], client_factory=_client_factory)
    lsp = await config.start()
    await lsp.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    yield lsp, root
    await lsp.shutdown_session()
    await lsp.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def client(server):
    lsp, _ = server
    opened = set(lsp.diagnostics)
    yield lsp
    for uri in set(lsp.diagnostics) - opened:  # close what the test opened
        lsp.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))


@pytest.fixture
def tmp_path(server, request):
    """A fresh folder inside the server's workspace folder."""
    path = server[1] / re.sub(r"\W+", "_", request.node.name)
    path.mkdir()
    return path


def last_version(client, uri: str):
    versions = [p.version for p in client.published if p.uri == uri]
    return versions[-1] if versions else None


async def until(condition, timeout: float = 15.0) -> None:
    """Wait until `condition()` holds (the server answers asynchronously)."""
    async def poll():
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


def codes(client, uri: str):
    return [d.code for d in client.diagnostics.get(uri, [])] if uri in client.diagnostics else None


def open_doc(client, path: Path, text: str, language_id: str = "python", version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)))
    return uri


def change_doc(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) the way an editor does."""
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[:position.line])
        line = lines[position.line]
        units, chars = 0, 0
        while units < position.character and chars < len(line):
            units += 2 if ord(line[chars]) > 0xFFFF else 1
            chars += 1
        return before + chars

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def actions_for(client, uri: str, diagnostics, only=None):
    rng = diagnostics[0].range if diagnostics else types.Range(start=types.Position(line=0, character=0),
                                                                end=types.Position(line=0, character=0))
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=rng,
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only)))


async def test_open_publishes_diagnostics_for_the_unsaved_buffer(client, tmp_path):
    (tmp_path / "train.py").write_text(CLEAN)  # the file on disk is clean; the buffer is not
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == ["DSL102"])
    diagnostic = client.diagnostics[uri][0]
    assert diagnostic.source == "dslint"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.range == types.Range(start=types.Position(line=4, character=8), end=types.Position(line=4, character=29))
    assert diagnostic.code_description.href == "https://github.com/dslint/dslint/blob/main/rules/DSL102.md"
    assert diagnostic.data["fix"]["applicability"] == "safe"
    assert diagnostic.data["fix"]["fixer"] == "add-map-location"
    assert last_version(client, uri) == 1


async def test_quick_fix_rewrites_the_buffer_exactly(client, tmp_path):
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == ["DSL102"])
    actions = await actions_for(client, uri, client.diagnostics[uri])
    fixes = [a for a in actions if a.title.startswith("dslint (DSL102)")]
    assert len(fixes) == 1 and fixes[0].kind == types.CodeActionKind.QuickFix and fixes[0].is_preferred
    assert apply(TRAIN, fixes[0].edit.changes[uri]) == TRAIN_FIXED


async def test_quick_fix_without_data_from_the_client(client, tmp_path):
    """Some clients drop `Diagnostic.data`; the server then uses what it published."""
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == ["DSL102"])
    stripped = [types.Diagnostic(range=d.range, message=d.message, code=d.code, source=d.source)
                for d in client.diagnostics[uri]]
    actions = await actions_for(client, uri, stripped)
    fix = next(a for a in actions if a.title.startswith("dslint (DSL102)"))
    assert apply(TRAIN, fix.edit.changes[uri]) == TRAIN_FIXED


async def test_change_updates_diagnostics(client, tmp_path):
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == ["DSL102"])
    change_doc(client, uri, TRAIN_FIXED, 2)
    await until(lambda: codes(client, uri) == [] and last_version(client, uri) == 2)
    change_doc(client, uri, TRAIN, 3)
    await until(lambda: codes(client, uri) == ["DSL102"] and last_version(client, uri) == 3)


async def test_incremental_change_with_non_ascii_uses_utf16_columns(client, tmp_path):
    uri = open_doc(client, tmp_path / "train.py", CLEAN)
    await until(lambda: codes(client, uri) == [])
    line = 'note = "🚀 ünï"; state = torch.load("ckpt.pt")\n'
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=4, character=0), end=types.Position(line=4, character=0)),
            text=line)]))
    await until(lambda: codes(client, uri) == ["DSL102"])
    start = line.index("torch.load")
    # the rocket is one character but two UTF-16 units
    assert client.diagnostics[uri][0].range.start == types.Position(line=4, character=start + 1)
    assert client.diagnostics[uri][0].range.end == types.Position(line=4, character=start + 1 + len('torch.load("ckpt.pt")'))
    actions = await actions_for(client, uri, client.diagnostics[uri])
    fix = next(a for a in actions if a.title.startswith("dslint (DSL102)"))
    assert apply(CLEAN + line, fix.edit.changes[uri]) == CLEAN + line.replace('"ckpt.pt")', '"ckpt.pt", map_location="cpu")')


@pytest.mark.parametrize("comment, expected", [
    ("", "  # noqa: DSL102"),  # a new comment
    ("  # noqa: E501", "  # noqa: E501, DSL102"),  # another linter's list, extended
])
async def test_ignore_action_adds_noqa_and_silences_the_line(client, tmp_path, comment, expected):
    text = TRAIN.replace('torch.load("ckpt.pt")\n', f'torch.load("ckpt.pt"){comment}\n')
    uri = open_doc(client, tmp_path / "train.py", text)
    await until(lambda: codes(client, uri) == ["DSL102"])
    actions = await actions_for(client, uri, client.diagnostics[uri])
    ignore = next(a for a in actions if a.title == "dslint: ignore DSL102 on this line")
    ignored = apply(text, ignore.edit.changes[uri])
    assert ignored == TRAIN.replace('torch.load("ckpt.pt")\n', f'torch.load("ckpt.pt"){expected}\n')
    change_doc(client, uri, ignored, 2)
    await until(lambda: codes(client, uri) == [] and last_version(client, uri) == 2)


async def test_fix_all_applies_every_safe_fix(client, tmp_path):
    text = TRAIN + 'other = torch.load("other.pt")\n'
    uri = open_doc(client, tmp_path / "train.py", text)
    await until(lambda: codes(client, uri) == ["DSL102", "DSL102"])
    actions = await actions_for(client, uri, [], only=["source.fixAll.dslint"])
    assert [a.kind for a in actions] == ["source.fixAll.dslint"]
    assert apply(text, actions[0].edit.changes[uri]) == (
        TRAIN_FIXED + 'other = torch.load("other.pt", map_location="cpu")\n')
    # offered lazily in the general menu too, and resolved to the same edit
    general = await actions_for(client, uri, [])
    lazy = next(a for a in general if a.kind == "source.fixAll.dslint")
    assert lazy.edit is None
    resolved = await client.code_action_resolve_async(lazy)
    assert apply(text, resolved.edit.changes[uri]) == apply(text, actions[0].edit.changes[uri])


async def test_settings_come_from_the_workspace_pyproject(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nignore = ["DSL102"]\n')
    uri = open_doc(client, tmp_path / "train.py", TRAIN + "x = torch.cuda.set_device(0)\n")
    await until(lambda: codes(client, uri) == ["DSL101"])


DS_TRAIN = """import argparse
import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()
model = torch.nn.Linear(8, 8)
engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
"""
OFFLOAD = """{
  "train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 1,
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}
}
"""
LAUNCH = "deepspeed --num_gpus=8 train.py --deepspeed --deepspeed_config ds_config.json\n"


async def test_invalid_settings_are_shown_and_fixing_them_relints(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nselcet = ["DSL1"]\n')
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == [] and any("selcet" in m.message for m in client.messages))
    error = next(m for m in client.messages if "selcet" in m.message)
    assert error.type == types.MessageType.Error and "pyproject.toml" in error.message
    assert not await actions_for(client, uri, [], only=["source.fixAll.dslint"])
    assert not [m for m in client.log_messages if "fix all failed" in m.message]
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nselect = ["DSL1"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    await until(lambda: codes(client, uri) == ["DSL102"])


async def test_a_config_change_relints_the_launch_script_that_uses_it(client, tmp_path):
    (tmp_path / "train.py").write_text(DS_TRAIN)
    (tmp_path / "ds_config.json").write_text(OFFLOAD)
    launch = open_doc(client, tmp_path / "launch.sh", LAUNCH, language_id="shellscript")
    config = open_doc(client, tmp_path / "ds_config.json", OFFLOAD, language_id="json")
    await until(lambda: codes(client, launch) == ["DSL201"] and codes(client, config) == [])
    # unsaved: the config on disk still offloads, the buffer no longer does
    change_doc(client, config, OFFLOAD.replace(', "offload_optimizer": {"device": "cpu"}', ""), 2)
    await until(lambda: codes(client, launch) == [])
    change_doc(client, config, OFFLOAD, 3)
    await until(lambda: codes(client, launch) == ["DSL201"])
    actions = await actions_for(client, launch, client.diagnostics[launch])
    ignore = next(a for a in actions if a.title == "dslint: ignore DSL201 on this line")
    assert apply(LAUNCH, ignore.edit.changes[launch]) == LAUNCH.rstrip("\n") + "  # noqa: DSL201\n"
    change_doc(client, launch, apply(LAUNCH, ignore.edit.changes[launch]), 2)
    await until(lambda: codes(client, launch) == [] and last_version(client, launch) == 2)


async def test_related_information_points_into_the_other_file(client, tmp_path):
    (tmp_path / "train.py").write_text(DS_TRAIN)
    (tmp_path / "launch.sh").write_text(LAUNCH)
    config_text = OFFLOAD.replace("{\n", '{\n  "train_batch_size": 8,\n', 1)
    config = open_doc(client, tmp_path / "ds_config.json", config_text, language_id="json")
    await until(lambda: codes(client, config) == ["DSL610"])
    related = client.diagnostics[config][0].related_information
    assert [(r.location.uri, r.location.range.start) for r in related] == [
        ((tmp_path / "launch.sh").resolve().as_uri(), types.Position(line=0, character=0))]


async def test_files_changed_outside_the_editor_are_picked_up(client, tmp_path):
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
    (tmp_path / "train.py").write_text(DS_TRAIN)
    (tmp_path / "ds_config.json").write_text(OFFLOAD)
    launch = open_doc(client, tmp_path / "launch.sh", LAUNCH, language_id="shellscript")
    await until(lambda: codes(client, launch) == ["DSL201"])
    (tmp_path / "ds_config.json").write_text(OFFLOAD.replace(', "offload_optimizer": {"device": "cpu"}', ""))
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(tmp_path / "ds_config.json").as_uri(), type=types.FileChangeType.Changed)]))
    await until(lambda: codes(client, launch) == [])


async def test_malformed_documents_never_crash_the_server(client, tmp_path):
    broken = open_doc(client, tmp_path / "broken.py", "import torch\ndef f(:\n")
    await until(lambda: codes(client, broken) == ["DSL001"])
    junk = open_doc(client, tmp_path / "junk.py", "import torch\n\x00\x01\xff\ufffd" + "(" * 5000 + "\n")
    config = open_doc(client, tmp_path / "ds_config.json", '{"zero_optimization": {"stage": 3,,}', language_id="json")
    launch = open_doc(client, tmp_path / "run.sh", 'torchrun --nproc_per_node=8 "unterminated\n', language_id="shellscript")
    await until(lambda: all(codes(client, u) is not None for u in (junk, config, launch)))
    assert codes(client, config) == ["DSL001"]
    # quick fixes on garbage do not crash either, and the server still works afterwards
    for uri in (broken, junk, config):
        await actions_for(client, uri, client.diagnostics[uri])
        await actions_for(client, uri, [], only=["source.fixAll.dslint"])
    good = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, good) == ["DSL102"])


async def test_library_sources_get_no_diagnostics(client, tmp_path):
    path = tmp_path / ".venv" / "lib" / "site-packages" / "pkg" / "train.py"
    path.parent.mkdir(parents=True)
    path.write_text(TRAIN)
    uri = open_doc(client, path, TRAIN)
    await until(lambda: codes(client, uri) == [])


async def test_close_clears_diagnostics(client, tmp_path):
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    await until(lambda: codes(client, uri) == ["DSL102"])
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await until(lambda: codes(client, uri) == [])


async def test_shutdown_is_clean(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("shutdown")
    # VS Code's client appends --stdio to the command; the server accepts and ignores it
    config = ClientServerConfig(server_command=[sys.executable, "-m", "dslint", "lsp", "--stdio"])
    lsp = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
    await lsp.shutdown_session()
    assert lsp._server.returncode == 0
    await lsp.stop()


async def test_utf8_positions_for_a_client_that_prefers_them(tmp_path_factory):
    """Neovim offers UTF-8 first; pygls picks it, and columns are then counted in bytes."""
    root = tmp_path_factory.mktemp("neovim")
    config = ClientServerConfig(server_command=[sys.executable, "-m", "dslint", "lsp"])
    lsp = await config.start()
    result = await lsp.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"), root_uri=root.as_uri()))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    line = 'note = "🚀 ünï"; state = torch.load("ckpt.pt")\n'
    uri = open_doc(lsp, root / "train.py", CLEAN + line)
    await until(lambda: codes(lsp, uri) == ["DSL102"])
    start = len(line[:line.index("torch.load")].encode("utf-8"))
    assert lsp.diagnostics[uri][0].range.start == types.Position(line=4, character=start)
    await lsp.shutdown_session()
    await lsp.stop()
