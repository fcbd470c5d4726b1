"""Fuzzing dslint with real files broken in the ways real files break.

Each input starts from a file in examples/ (Python, DeepSpeed JSON, shell) and gets one to three
mutations: byte flips, truncation, deep nesting, a long line, NUL bytes, another encoding or a
BOM, a huge number, lone-CR or mixed line endings, a lone surrogate. The properties: no
exception escapes the engine or a reporter, `-o json` is valid JSON, and `fix` never turns a
file that parses into one that does not. The same generator drives bench/fuzz.py's long run.
"""
from __future__ import annotations

import ast
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from dslint import engine  # noqa: E402
from dslint.report import render  # noqa: E402
from dslint.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SEEDS = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*")
               if p.is_file() and p.suffix in (".py", ".json", ".sh"))


# -- the generator (shared with bench/fuzz.py) --------------------------------------------------------

def _flip(rng: random.Random, data: bytes, kind: str) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randrange(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _truncate(rng: random.Random, data: bytes, kind: str) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _nest(rng: random.Random, data: bytes, kind: str) -> bytes:
    depth = rng.choice([50, 140, 325, 1000, 5000])
    if kind == "json":
        blob = b"[" * depth + b"1" + b"]" * depth
        return data.replace(b"{", b'{"deep": ' + blob + b",", 1) if b"{" in data else blob
    if kind == "sh":
        return data + b"\n" + b"$(" * depth + b"echo" + b")" * depth + b"\n"
    blob = rng.choice([b"(" * depth + b"1" + b")" * depth, b"[" * depth + b"1" + b"]" * depth,
                       b" + ".join([b"1"] * depth)])
    return _insert_line(rng, data, b"DEEP = " + blob)


def _long_line(rng: random.Random, data: bytes, kind: str) -> bytes:
    size = rng.choice([10_000, 200_000])
    if kind == "json":
        return data.replace(b"{", b'{"' + b"k" * size + b'": 1,', 1)
    if kind == "sh":
        return data + b"\necho " + b"x" * size + b"\n"
    return _insert_line(rng, data, b"LONG = '" + b"x" * size + b"'")


def _nul(rng: random.Random, data: bytes, kind: str) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\0" + data[at:]


def _encoding(rng: random.Random, data: bytes, kind: str) -> bytes:
    text = data.decode("utf-8", "replace")
    choice = rng.randrange(5)
    if choice == 0:
        return b"\xef\xbb\xbf" + data
    if choice == 1:
        return text.encode("utf-16")
    if choice == 2:
        return (text + "# café ☃ 🚀\n").encode("latin-1", "replace")
    if choice == 3:
        return b"\xef\xbb\xbf\xef\xbb\xbf" + data
    return data + "é".encode("utf-8")[:1]  # a cut multi-byte character


def _huge_number(rng: random.Random, data: bytes, kind: str) -> bytes:
    digits = b"9" * rng.choice([400, 4301, 20_000])
    if kind == "json":
        import re

        return re.sub(rb"(?<![\w.])\d+(?![\w.])", digits, data, count=1) if re.search(rb"\d", data) else data
    if kind == "sh":
        return data + b"\nexport WORLD_SIZE=" + digits + b"\n"
    return _insert_line(rng, data, b"BIG = " + digits)


def _line_endings(rng: random.Random, data: bytes, kind: str) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        return data.replace(b"\n", b"\r")
    if choice == 1:
        return data.replace(b"\n", b"\r\n")
    return b"".join(line + rng.choice([b"\n", b"\r", b"\r\n"]) for line in data.split(b"\n"))


def _surrogate(rng: random.Random, data: bytes, kind: str) -> bytes:
    if kind == "json":
        key = rng.choice([b'"\\ud800"', b'"\\udfff\\ud800"', b'"a\\ud83d"'])
        return data.replace(b"{", b"{" + key + b": " + key + b",", 1)
    lone = "\ud800".encode("utf-8", "surrogatepass")
    if kind == "sh":
        return data + b"\necho " + lone + b"\n"
    return _insert_line(rng, data, rng.choice([b"S = '" + lone + b"'", b"S = '\\ud800'"]))


def _insert_line(rng: random.Random, data: bytes, line: bytes) -> bytes:
    """`line` at the start of a random top-level line (so it stays Python where the file was)."""
    starts = [0] + [i + 1 for i in range(len(data)) if data[i:i + 1] == b"\n" and data[i + 1:i + 2] not in (b" ", b"\t")]
    at = rng.choice(starts)
    return data[:at] + line + b"\n" + data[at:]


MUTATIONS = {"flip": _flip, "truncate": _truncate, "nest": _nest, "long-line": _long_line, "nul": _nul,
             "encoding": _encoding, "huge-number": _huge_number, "line-endings": _line_endings,
             "surrogate": _surrogate}


def mutate(rng: random.Random, seed: str) -> tuple[bytes, list[str]]:
    """A broken copy of examples/`seed` and the names of the mutations applied."""
    data = (EXAMPLES / seed).read_bytes()
    kind = Path(seed).suffix.lstrip(".")
    names = [rng.choice(sorted(MUTATIONS)) for _ in range(rng.randrange(1, 4))]
    for name in names:
        data = MUTATIONS[name](rng, data, kind)
    return data, names


# -- the properties --------------------------------------------------------------------------------

def _parses(path: Path, text: str) -> bool:
    if path.suffix == ".py":
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return True
    if path.suffix == ".json":
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            return False
    return True


def check_properties(seed: str, data: bytes, *, fix: bool = True) -> None:
    """Every property for one input; raises AssertionError (or the escaped exception) on failure."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copytree(EXAMPLES / Path(seed).parent, root, dirs_exist_ok=True)
        target = root / Path(seed).name
        target.write_bytes(data)
        result = engine.check([str(root)], Settings(), root=root, use_cache=False, jobs=1)
        assert all(f.code.startswith("DSL") for f in result.findings)
        for fmt in ("json", "full", "concise", "sarif"):
            out = io.StringIO()
            render(result.findings, fmt, out, result.texts)
            if fmt in ("json", "sarif"):
                json.loads(out.getvalue())
        if not fix:
            return
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        outcome = engine.fix([str(root)], Settings(), unsafe=True, root=root, write=False)
        for abspath, (old, new) in outcome.changed.items():
            path = Path(abspath)
            if _parses(path, old):
                assert _parses(path, new), f"fix broke {path.name}"
        assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before  # write=False wrote nothing


FUZZ = settings(max_examples=int(os.environ.get("DSLINT_FUZZ_EXAMPLES", "100")), deadline=None, derandomize=True,
                database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(seed=st.sampled_from(SEEDS), rng=st.randoms(use_true_random=False))
def test_no_exception_escapes_and_every_report_is_valid(seed, rng):
    data, _ = mutate(rng, seed)
    check_properties(seed, data, fix=False)


@settings(FUZZ, max_examples=max(5, FUZZ.max_examples // 2))
@given(seed=st.sampled_from([s for s in SEEDS if s.endswith((".py", ".json"))]), rng=st.randoms(use_true_random=False))
def test_fix_never_breaks_a_file_that_parses(seed, rng):
    data, _ = mutate(rng, seed)
    check_properties(seed, data, fix=True)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_each_mutation_on_each_kind_of_file(mutation):
    rng = random.Random(mutation)
    for seed in ("unsharded_loader/train.py", "rank0_save_hang/ds_config.json", "zero_offload_torchrun/train.sh"):
        kind = Path(seed).suffix.lstrip(".")
        check_properties(seed, MUTATIONS[mutation](rng, (EXAMPLES / seed).read_bytes(), kind), fix=False)


CLI_CASES = [("unsharded_loader/train.py", "line-endings"), ("rank0_save_hang/ds_config.json", "huge-number"),
             ("zero_offload_torchrun/train.sh", "surrogate"), ("hf_trainer_hjson_config/ds_z3.json", "nest")]


@pytest.mark.parametrize("seed, mutation", CLI_CASES)
def test_the_cli_exits_0_1_or_2_with_valid_json_and_no_traceback(tmp_path, seed, mutation):
    shutil.copytree(EXAMPLES / Path(seed).parent, tmp_path, dirs_exist_ok=True)
    kind = Path(seed).suffix.lstrip(".")
    (tmp_path / Path(seed).name).write_bytes(MUTATIONS[mutation](random.Random(1), (EXAMPLES / seed).read_bytes(), kind))
    run = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "-o", "json", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode in (0, 1, 2), run.stderr
    assert "Traceback" not in run.stderr
    json.loads(run.stdout)
