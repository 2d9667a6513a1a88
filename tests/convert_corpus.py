"""Run `tfcompare convert` on the public TF1 corpus, as a user would, and write what happened per script.

The corpus is listed in tests/data/convert_corpus/corpus.json (repository, path, commit, licence); the copies
themselves are not committed (fetched third-party code stays out of the repository): they live, git-ignored,
under tests/data/convert_corpus/<owner>__<repo>/ on a machine that fetched them. Each script is converted from a
fresh copy of its repository folder, from the script's own folder, with default options; per script: the exit
code, whether NEW.py was written and is valid Python, its TODO(tfcompare) marks, how it ran on its own, and
pair's verdict. `python tests/convert_corpus.py OUT.json [ID ...]` (one conversion at a time: 2 cores).
`python tests/convert_corpus.py --populate MIRROR` first writes the copies from git mirrors of the repositories
(MIRROR/<owner>+<repo>/repo, as the tool library's fetch leaves them): each repository's tree at its listed commit.
"""

from __future__ import annotations

import ast
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).parent / "data" / "convert_corpus"



def written_code(text: str) -> str:
    """A rewrite's code: without the TF1 script's own docstring, which `convert` keeps as its authors wrote it (it
    may describe their Session loop), and without comments (provenance quotes TF1's lines)."""
    tree = ast.parse(text)
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
        text = text.replace(ast.get_source_segment(text, tree.body[0]), "", 1)
    return "\n".join(line.split("#")[0] for line in text.splitlines())


def entries() -> list[dict]:
    return json.loads((CORPUS / "corpus.json").read_text())


def present(entry: dict) -> bool:
    return (CORPUS / entry["path"]).is_file()


def convert_one(entry: dict, timeout_s: float = 900) -> dict:
    """One script, converted from a fresh copy of its repository's folder."""
    repo = entry["path"].split("/", 1)[0]
    with tempfile.TemporaryDirectory(prefix="tfcompare-corpus-") as tmp:
        shutil.copytree(CORPUS / repo, Path(tmp) / repo)
        script = Path(tmp) / entry["path"]
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "tfcompare", "convert", script.name, "-o", "converted_tf2.py",
                               "--json"], cwd=script.parent, capture_output=True, text=True, timeout=timeout_s,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
        out = {"id": entry["id"], "rc": proc.returncode, "seconds": round(time.perf_counter() - started, 1)}
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = {}
        written = script.parent / "converted_tf2.py"
        out["written"] = written.is_file()
        out["compiles"] = False
        if out["written"]:
            try:
                py_compile.compile(str(written), doraise=True)
                out["compiles"] = True
            except py_compile.PyCompileError:
                pass
            text = written.read_text()
            # both kinds of mark, counted here by their spelling (the console's list should be these, one for one)
            out["todo_marks"] = text.count("TODO(tfcompare)") + len(re.findall(r"\bTODO_tfcompare\(['\"]", text))
            out["compat_v1"] = "compat.v1" in written_code(text)  # the script's own docstring is kept as written
        out["todos"] = len(report.get("todos", []))
        out["status"] = report.get("status", "")
        out["error"] = (report.get("error") or "")[:300]
        alone = report.get("alone") or {}
        out["alone"] = alone.get("ended", "")
        out["alone_error"] = (alone.get("error") or "")[:200]
        out["verdict"] = (report.get("pair") or {}).get("status", "")
        timing = (report.get("pair") or {}).get("timing") or {}
        if timing.get("timed"):  # the written step against TF1's (issue 37's table)
            out["tf1_step_s"], out["tf2_step_s"] = timing["tf1"]["median_s"], timing["tf2"]["median_s"]
            out["speedup"], out["load_1min"] = timing.get("speedup"), timing.get("load_1min")
        out["levers"] = [{k: t.get(k) for k in ("name", "kept", "why", "speedup", "plain_speedup")}
                         for t in report.get("levers", [])]
        return out


def populate(mirror: Path) -> None:
    """Each repository's tree at the corpus's commit, from a local git mirror (blobs the mirror lacks are skipped)."""
    for repo, commit in sorted({(e["repo"], e["commit"]) for e in entries()}):
        base = mirror / repo.replace("/", "+") / "repo"
        git_dir = base / ".git" if (base / ".git").is_dir() else base
        into = CORPUS / repo.replace("/", "__")
        listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
                                 capture_output=True, check=True).stdout.split(b"\0")
        for row in filter(None, listing):
            meta, path = row.split(b"\t", 1)
            kind, sha = meta.split()[1:3]
            if kind != b"blob":
                continue
            blob = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob", sha.decode()],
                                  capture_output=True)
            if blob.returncode == 0:
                target = into / path.decode()
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob.stdout)
        print(repo, commit[:12], "->", into, flush=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--populate"]:
        populate(Path(argv[1]))
        return 0
    target, wanted = Path(argv[0]), set(argv[1:])
    results = json.loads(target.read_text()) if target.exists() else {}
    for entry in entries():
        if (wanted and entry["id"] not in wanted) or not present(entry):
            continue
        results[entry["id"]] = convert_one(entry)
        target.write_text(json.dumps(results, indent=1))
        print(entry["id"], results[entry["id"]]["rc"], results[entry["id"]]["status"],
              results[entry["id"]]["error"][:120], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
