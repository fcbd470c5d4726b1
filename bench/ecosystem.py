#!/usr/bin/env python3
"""dslint's ecosystem check: dslint over pinned real training repositories, against judged findings.

As ruff runs every change against real projects, a dslint change is run over the repositories
pinned in `bench/ecosystem/repos.toml` (fetched, never committed), and its findings are joined
with the judgements committed in `bench/ecosystem/judged.toml` (TRUE, FALSE or DEBATABLE, and
why). A new finding is judged before the change lands. Run from the repository root:

    # 1. the repositories: fetch each `name` with the search tool's `fetch` (github:owner/name),
    #    then write each pinned commit into /tmp/ecosystem/<owner>+<repo>/ (present blobs only)
    .venv/bin/python bench/ecosystem.py checkout --mirrors /work/.mirror --checkouts /tmp/ecosystem
    # 2. the findings of this dslint, and the report against the judgements
    .venv/bin/python bench/ecosystem.py run --checkouts /tmp/ecosystem --out /tmp/eco.json
    .venv/bin/python bench/ecosystem.py run --rev HEAD --out /tmp/eco.json    # committed code only
    .venv/bin/python bench/ecosystem.py report --findings /tmp/eco.json
    # 3. what a change adds and removes: two findings files, or two dslint revisions
    .venv/bin/python bench/ecosystem.py diff --findings bench/ecosystem/baseline-5522334.json \\
        --findings-b /tmp/eco.json
    .venv/bin/python bench/ecosystem.py diff HEAD~1 HEAD --checkouts /tmp/ecosystem

`run` calls `dslint check --output-format json --no-cache --exit-zero` in each checkout (so the
paths are repository-relative); a revision for `diff REV_A REV_B` is a throwaway
`git worktree` in /tmp whose `src/` goes first on PYTHONPATH of this venv's python.
Standard library only (tomllib, or tomli on Python 3.10).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REPOS = HERE / "ecosystem" / "repos.toml"
JUDGED = HERE / "ecosystem" / "judged.toml"
VERDICTS = ("TRUE", "FALSE", "DEBATABLE")
LINE_SLACK = 3  # a judged line still matches a finding moved by this many lines


def load_repos() -> list[dict]:
    """The pinned repositories: name, commit, optional subdir, why."""
    return tomllib.loads(REPOS.read_text())["repo"]


def checkout_dir(checkouts: Path, name: str) -> Path:
    return checkouts / name.replace("/", "+")


# -- checkout ------------------------------------------------------------------------------------


def write_tree(git_dir: Path, commit: str, dest: Path) -> tuple[int, int]:
    """Write `commit`'s files into `dest`, skipping blobs the snapshot lacks (large files, LFS)."""
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit], check=True, capture_output=True).stdout
    entries = []
    for item in listing.split(b"\0"):
        if item:
            meta, path = item.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob" and mode != b"120000":  # no symlinks: they may point outside
                entries.append((mode, sha.decode(), path.decode("utf-8", "surrogateescape")))
    batch = subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    written = missing = 0
    for mode, sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if header[-1] == b"missing":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if mode == b"100755":
            target.chmod(0o755)
        written += 1
    batch.stdin.close()
    batch.wait()
    return written, missing


def cmd_checkout(args) -> int:
    for repo in load_repos():
        git_dir = args.mirrors / repo["name"].replace("/", "+") / "repo"
        if (git_dir / ".git").is_dir():  # (a snapshot fetched as a work tree's clone)
            git_dir = git_dir / ".git"
        dest = checkout_dir(args.checkouts, repo["name"])
        if dest.exists():
            print(f"{repo['name']}: {dest} exists, kept", file=sys.stderr)
            continue
        if not git_dir.is_dir():
            print(f"{repo['name']}: no snapshot at {git_dir} (fetch github:{repo['name']})", file=sys.stderr)
            continue
        written, missing = write_tree(git_dir, repo["commit"], dest)
        print(f"{repo['name']}: {written} files, {missing} missing blobs -> {dest}", file=sys.stderr)
    return 0


# -- run -----------------------------------------------------------------------------------------


def run_dslint(command: list[str], checkouts: Path, env: dict | None = None) -> dict:
    """Run dslint in every checkout; the findings as {repo, path, row, code, message} records."""
    findings, repos = [], {}
    for repo in load_repos():
        name, where = repo["name"], checkout_dir(checkouts, repo["name"])
        if not where.is_dir():
            print(f"{name:42} no checkout at {where}", file=sys.stderr)
            repos[name] = {"commit": repo["commit"], "status": "missing"}
            continue
        started = time.monotonic()
        proc = subprocess.run(
            [*command, "check", "--output-format", "json", "--no-cache", "--exit-zero", "--no-progress",
             repo.get("subdir", ".")],
            cwd=where, capture_output=True, text=True, env=env,
        )
        seconds = round(time.monotonic() - started, 1)
        try:
            records = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError:
            records = []
        found = [
            {"repo": name, "path": os.path.normpath(r["filename"]), "row": r["location"]["row"],
             "code": r["code"], "message": r["message"]}
            for r in records
        ]
        internal = [f for f in found if f["code"] == "DSL003"]
        crash = None
        if proc.returncode != 0 or internal:  # with --exit-zero, only a crash or a usage error exits non-zero
            crash = f"exit {proc.returncode}, {len(internal)} DSL003; " + proc.stderr.strip()[-400:]
        repos[name] = {"commit": repo["commit"], "status": "crash" if crash else "ok", "seconds": seconds,
                       "findings": len(found), **({"crash": crash} if crash else {})}
        findings.extend(found)
        print(f"{name:42} {len(found):4} findings {seconds:6.1f} s" + (f"  CRASH: {crash}" if crash else ""),
              file=sys.stderr)
    findings.sort(key=lambda f: (f["repo"], f["path"], f["row"], f["code"]))
    return {"dslint": " ".join(command), "repos": repos, "findings": findings}


def cmd_run(args) -> int:
    if args.rev:  # a committed revision, unaffected by edits in the working tree
        command, env, tree = build_revision(args.rev)
        result = run_dslint(command, args.checkouts, env)
        result["dslint"] = f"{args.rev} = {tree.name[len('dslint-'):]}"
        remove_revision(tree)
    else:
        result = run_dslint([args.dslint], args.checkouts)
    text = json.dumps(result, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
        print(f"{len(result['findings'])} findings -> {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 2 if any(r["status"] == "crash" for r in result["repos"].values()) else 0


# -- report --------------------------------------------------------------------------------------


def load_judged() -> list[dict]:
    """The judgements; an entry with `lines = [...]` judges the same pattern on several lines."""
    entries = []
    for entry in tomllib.loads(JUDGED.read_text()).get("judged", []) if JUDGED.exists() else []:
        if entry["verdict"] not in VERDICTS:
            raise SystemExit(f"{JUDGED}: verdict {entry['verdict']!r} of {entry} is not one of {VERDICTS}")
        for line in entry.get("lines", [entry.get("line")]):
            entries.append({**entry, "line": line})
    return entries


def join(findings: list[dict], judged: list[dict]) -> tuple[list, list, list]:
    """(finding, judgement) pairs, the unjudged findings, and the judgements no finding matched.

    Exact (repo, path, code, line) first; then a judgement within LINE_SLACK lines of the same
    repo, path and code, when it is the only candidate.
    """
    exact = collections.defaultdict(list)
    for j in judged:
        exact[(j["repo"], j["path"], j["code"], j["line"])].append(j)
    used, pairs, pending = set(), [], []
    for f in findings:
        hit = exact.get((f["repo"], f["path"], f["code"], f["row"]))
        if hit:
            pairs.append((f, hit[0]))
            used.add(id(hit[0]))
        else:
            pending.append(f)
    unjudged = []
    for f in pending:
        near = [j for j in judged if id(j) not in used and (j["repo"], j["path"], j["code"]) ==
                (f["repo"], f["path"], f["code"]) and abs(j["line"] - f["row"]) <= LINE_SLACK]
        if len(near) == 1:
            pairs.append((f, near[0]))
            used.add(id(near[0]))
        else:
            unjudged.append(f)
    lost = [j for j in judged if id(j) not in used]
    return pairs, unjudged, lost


def rate(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def cmd_report(args) -> int:
    findings = json.loads(args.findings.read_text())["findings"]
    pairs, unjudged, lost = join(findings, load_judged())
    table = collections.defaultdict(collections.Counter)
    for f, j in pairs:
        table[f["code"]][j["verdict"]] += 1
    for f in unjudged:
        table[f["code"]]["unjudged"] += 1
    print(f"{'rule':8} {'findings':>8} {'true':>5} {'false':>5} {'debat.':>6} {'unjudged':>8} {'false rate':>10}")
    total = collections.Counter()
    for code in sorted(table):
        c = table[code]
        total.update(c)
        n = sum(c.values())
        print(f"{code:8} {n:8} {c['TRUE']:5} {c['FALSE']:5} {c['DEBATABLE']:6} {c['unjudged']:8} "
              f"{rate(c['FALSE'], n - c['unjudged']):>10}")
    n = sum(total.values())
    print(f"{'all':8} {n:8} {total['TRUE']:5} {total['FALSE']:5} {total['DEBATABLE']:6} {total['unjudged']:8} "
          f"{rate(total['FALSE'], n - total['unjudged']):>10}")
    print("(false rate = false / judged findings)")
    if unjudged:
        print(f"\n{len(unjudged)} unjudged findings (judge them in {JUDGED.relative_to(ROOT)} before the change lands):")
        for f in unjudged:
            print(f"  {f['repo']} {f['path']}:{f['row']} {f['code']} {f['message'][:140]}")
    if lost:
        print(f"\n{len(lost)} judged entries no longer found (fixed, or lost):")
        for j in lost:
            print(f"  {j['repo']} {j['path']}:{j['line']} {j['code']} {j['verdict']}: {j['why']}")
    return 1 if unjudged else 0


# -- diff ----------------------------------------------------------------------------------------


def build_revision(rev: str) -> tuple[list[str], dict, Path]:
    """A dslint command for revision `rev`: its worktree's src/ first on this venv's PYTHONPATH."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    tree = Path(f"/tmp/dslint-{sha}")
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], check=True,
                       capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    return [sys.executable, "-m", "dslint"], env, tree


def remove_revision(tree: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)


def key(f: dict) -> tuple:
    return (f["repo"], f["path"], f["row"], f["code"])


def cmd_diff(args) -> int:
    if args.revs:
        if len(args.revs) != 2 or not args.checkouts:
            raise SystemExit("diff REV_A REV_B needs two revisions and --checkouts")
        runs = []
        for rev in args.revs:
            command, env, tree = build_revision(rev)
            print(f"== {rev} ({tree})", file=sys.stderr)
            runs.append(run_dslint(command, args.checkouts, env)["findings"])
            remove_revision(tree)
        a, b = runs
    else:
        if not (args.findings and args.findings_b):
            raise SystemExit("diff needs --findings A.json --findings-b B.json, or REV_A REV_B --checkouts DIR")
        a = json.loads(args.findings.read_text())["findings"]
        b = json.loads(args.findings_b.read_text())["findings"]
    count_a, count_b = collections.Counter(map(key, a)), collections.Counter(map(key, b))
    added = [f for f in b if count_b[key(f)] > count_a[key(f)]]
    removed = [f for f in a if count_a[key(f)] > count_b[key(f)]]
    per_rule = collections.defaultdict(lambda: [0, 0])
    for f in added:
        per_rule[f["code"]][0] += 1
    for f in removed:
        per_rule[f["code"]][1] += 1
    print(f"{len(a)} -> {len(b)} findings: +{len(added)} -{len(removed)}")
    for code in sorted(per_rule):
        print(f"  {code}: +{per_rule[code][0]} -{per_rule[code][1]}")
    for sign, group in (("+", added), ("-", removed)):
        for f in group:
            print(f"{sign} {f['repo']} {f['path']}:{f['row']} {f['code']} {f['message'][:120]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("checkout", help="write each pinned commit from fetched snapshots")
    p.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    p.add_argument("--checkouts", type=Path, default=Path("/tmp/ecosystem"))
    p.set_defaults(func=cmd_checkout)
    p = sub.add_parser("run", help="run dslint on every checkout, write the findings as JSON")
    p.add_argument("--checkouts", type=Path, default=Path("/tmp/ecosystem"))
    p.add_argument("--dslint", default=str(ROOT / ".venv" / "bin" / "dslint"))
    p.add_argument("--rev", help="run this committed revision (a git worktree in /tmp) instead of --dslint")
    p.add_argument("--out", type=Path)
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("report", help="join findings with bench/ecosystem/judged.toml")
    p.add_argument("--findings", type=Path, required=True)
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("diff", help="findings added and removed between two runs or two revisions")
    p.add_argument("revs", nargs="*", metavar="REV")
    p.add_argument("--findings", type=Path)
    p.add_argument("--findings-b", type=Path)
    p.add_argument("--checkouts", type=Path)
    p.set_defaults(func=cmd_diff)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
