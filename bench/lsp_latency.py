"""How long after a keystroke `dslint lsp` publishes diagnostics for a 2,000-line script.

    .venv/bin/python bench/lsp_latency.py            # print the table
    .venv/bin/python bench/lsp_latency.py --write    # also put it in bench/RESULTS.md ("## LSP latency",
                                                     # a subsection per --machine)

Three numbers, each the median of several runs on the same text:
- baseline: a bare `ast.parse` of the script (the least any Python linter must pay);
- in-process: `WorkspaceLinter.lint` on the buffer (what the server does per change: the whole
  folder, the open buffer from the overlay, the other files from the in-memory cache);
- end to end: the real server process over stdio: `didChange` sent -> `publishDiagnostics` for
  that version received (includes the server's debounce and the JSON-RPC round trip).
Two folders: the script with a DeepSpeed config and a launch script (a typical project), and the
same plus 60 other training scripts (a repository of examples).
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dslint.lsp_lint import OpenDocument, WorkspaceLinter  # noqa: E402
from dslint.lsp_server import DEBOUNCE_SECONDS  # noqa: E402

BLOCK = '''

def train_epoch_{i}(model, loader, optimizer, epoch, device):
    """One epoch of block {i}."""
    model.train()
    sampler = loader.sampler
    total = 0.0
    for step, (inputs, labels) in enumerate(loader):
        inputs = inputs.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(inputs)
            loss = nn.functional.cross_entropy(logits, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        total += loss.item()
        if step % 100 == 0 and dist.get_rank() == 0:
            print(f"epoch {{epoch}} step {{step}} loss {{total / (step + 1):.4f}}")
    return total / max(1, len(loader))


class Block{i}(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(torch.relu(self.fc(x))) + x
'''

HEADER = '''import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
'''

MAIN = '''

def main():
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    model = nn.parallel.DistributedDataParallel(Block0(512).to(device), device_ids=[local_rank])
    state = torch.load("checkpoint.pt")
    model.load_state_dict(state)
    dataset = TensorDataset(torch.randn(1024, 512), torch.randint(0, 10, (1024,)))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        train_epoch_0(model, loader, optimizer, epoch, device)


if __name__ == "__main__":
    main()
'''

CONFIG = '{\n  "train_micro_batch_size_per_gpu": 4,\n  "gradient_accumulation_steps": 1,\n  "zero_optimization": {"stage": 2}\n}\n'
LAUNCH = "#!/bin/sh\ntorchrun --nproc_per_node=8 train.py --deepspeed_config ds_config.json\n"


def script(lines: int = 2000) -> str:
    text, i = HEADER, 0
    while text.count("\n") + MAIN.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return text + MAIN


def make_project(folder: Path, others: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    train = folder / "train.py"
    train.write_text(script())
    (folder / "ds_config.json").write_text(CONFIG)
    (folder / "launch.sh").write_text(LAUNCH)
    for n in range(others):
        (folder / "examples" / f"ex{n:02d}").mkdir(parents=True, exist_ok=True)
        (folder / "examples" / f"ex{n:02d}" / "train.py").write_text(script(300))
    return train


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_parse(text: str, runs: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        ast.parse(text)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def bench_in_process(train: Path, runs: int) -> tuple[list[float], list[float], int]:
    linter = WorkspaceLinter()
    text = train.read_text()
    path = os.path.realpath(train)
    linter.lint([OpenDocument(path, text, 0, "python")])  # the first lint fills the cache
    wall, cpu, count = [], [], 0
    for n in range(runs):
        edited = text + f"# edit {n}\n"  # every run lints a new buffer, as after a keystroke
        start, start_cpu = time.perf_counter(), time.process_time()
        outcome = linter.lint([OpenDocument(path, edited, n + 1, "python")], {str(train.parent)})
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        count = len(outcome.findings[path])
    return wall, cpu, count


async def bench_end_to_end(train: Path, runs: int) -> tuple[list[float], list[float]]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived: dict[int, float] = {}
    uri = train.resolve().as_uri()

    server_ms: list[float] = []

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def _logged(params: types.LogMessageParams):
        if params.message.startswith("dslint: linted"):
            server_ms.append(float(params.message.rsplit(" in ", 1)[1].split()[0]))

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: types.PublishDiagnosticsParams):
        if params.uri == uri and params.version is not None:
            arrived.setdefault(params.version, time.perf_counter())

    await client.start_io(sys.executable, "-m", "dslint", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=train.parent.as_uri()))
    client.initialized(types.InitializedParams())
    text = train.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=0, text=text)))
    await _wait(arrived, 0)
    out = []
    for version in range(1, runs + 1):
        edited = text + f"# edit {version}\n"
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
        await _wait(arrived, version)
        out.append(arrived[version] - sent)
        await asyncio.sleep(0.05)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out, server_ms[-runs:]


async def _wait(arrived: dict, version: int, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while version not in arrived:
        if time.perf_counter() > deadline:
            raise TimeoutError(f"no diagnostics for version {version}")
        await asyncio.sleep(0.001)


SECTION = "## LSP latency"
INTRO = """Target: diagnostics within 200 ms of a change to a 2,000-line script. `bench/lsp_latency.py`
measures, on a generated 2,011-line training script, medians of 15 runs: the baseline (a bare
`ast.parse` of the script), the server's lint in-process (the buffer from the overlay, the other
files of the folder from the in-memory cache), and end to end through the real server over stdio
(`didChange` sent until `publishDiagnostics` for that version arrives, the debounce included).
One subsection per machine; CPU times in brackets."""


def run(runs: int, machine: str) -> str:
    rows, medians = [], []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        for label, others in (("script + config + launch script", 0), ("same + 60 other scripts in the folder", 60)):
            train = make_project(Path(tmp) / f"p{others}", others)
            text = train.read_text()
            parse, parse_cpu = bench_parse(text, runs)
            lint, lint_cpu, count = bench_in_process(train, runs)
            e2e, server = asyncio.run(bench_end_to_end(train, runs))
            medians.append((label, median_ms(e2e)))
            rows.append(f"| {label} | {text.count(chr(10))} | {median_ms(parse):.1f} ({median_ms(parse_cpu):.1f}) "
                        f"| {median_ms(lint):.1f} ({median_ms(lint_cpu):.1f}) | {median_ms(lint) / median_ms(parse):.1f}x "
                        f"| {statistics.median(server):.0f} | {median_ms(e2e):.1f} | {max(e2e) * 1000:.1f} | {count} |")
    verdicts = "; ".join(f"{label}: {'met' if ms <= 200 else 'missed'} ({ms:.0f} ms)" for label, ms in medians)
    return "\n".join([
        f"### {machine}",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; load average {load_before:.1f} before and "
        f"{os.getloadavg()[0]:.1f} after the run; `python bench/lsp_latency.py --runs {runs} --machine \"{machine}\"`; "
        f"debounce {DEBOUNCE_SECONDS * 1000:.0f} ms.",
        "",
        "| folder | script lines | baseline: `ast.parse` ms | in-process lint ms | lint / baseline | lint in the server ms | end to end ms | end to end worst ms | findings |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"200 ms end to end, median: {verdicts}.",
        "",
    ])


def write_section(subsection: str) -> None:
    """Put `subsection` (### machine) under "## LSP latency" in bench/RESULTS.md, replacing the same machine's."""
    path = Path(__file__).resolve().parent / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    start = text.find(f"\n{SECTION}\n")
    if start == -1:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{INTRO}\n\n"
        start = text.find(f"\n{SECTION}\n")
    end = text.find("\n## ", start + 1)
    end = len(text) if end == -1 else end + 1
    body = text[start:end]
    heading = subsection.split("\n", 1)[0]
    at = body.find(f"\n{heading}\n")
    if at == -1:
        body = body.rstrip("\n") + "\n\n" + subsection
    else:
        after = body.find("\n### ", at + 1)
        body = body[:at + 1] + subsection + ("" if after == -1 else "\n" + body[after + 1:])
    text = text[:start] + body.rstrip("\n") + "\n" + ("\n" + text[end:] if end < len(text) else "")
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--machine", default="development machine (shared, 2 cores)",
                        help="the subsection's heading in bench/RESULTS.md")
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    args = parser.parse_args()
    subsection = run(args.runs, args.machine)
    print(subsection)
    if args.write:
        write_section(subsection)


if __name__ == "__main__":
    main()
