"""TensorFlow's own `tf_upgrade_v2`, run for real on a temporary copy: what it renamed, what it said, what it wrote.

The user's files are copied into a temporary tree and the tool rewrites the copy (`--intree/--outtree`),
so nothing of the user's is ever edited. It runs as `python -m` of the module the installed TensorFlow
ships, in a child process with a time limit; if it is missing or fails, the rest of the report stands.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tfcompare.core.children import die_with_parent

__all__ = ["UpgradeEntry", "UpgradeResult", "run_upgrade"]

_MODULE = "tensorflow.tools.compatibility.tf_upgrade_v2_main"
_TIMEOUT_S = 300
_SECTION = re.compile(r"^Processing file '(?P<path>.+)'$")
_ENTRY = re.compile(r"^(?P<line>\d+):(?P<col>\d+): (?P<level>INFO|WARNING|ERROR): (?P<msg>.*)$")
_RENAMED = re.compile(r"Renamed '(?P<old>[\w.]+)' to '(?P<new>[\w.]+)'")


@dataclasses.dataclass(frozen=True)
class UpgradeEntry:
    line: int
    col: int
    level: str
    message: str

    @property
    def renamed_to(self) -> str | None:
        m = _RENAMED.search(self.message)
        return m.group("new") if m else None


@dataclasses.dataclass
class UpgradeResult:
    entries: dict[str, list[UpgradeEntry]]  # user file -> what the tool said about it
    rewritten: dict[str, str]  # user file -> the tool's rewrite of it
    failed: dict[str, str]  # user file -> why the tool could not convert it
    error: str | None = None  # the tool as a whole did not run
    issues_reported: int | None = None  # its own "Detected N issues" count


def run_upgrade(files: list[Path]) -> UpgradeResult:
    """Run the tool on copies of `files`; map everything it says back to the user's paths."""
    result = UpgradeResult({}, {}, {})
    with tempfile.TemporaryDirectory(prefix="tfcompare-migrate-") as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        back: dict[str, str] = {}
        for i, f in enumerate(files):
            copy = src / str(i) / f.name
            copy.parent.mkdir(parents=True)
            shutil.copyfile(f, copy)
            back[str(copy)] = str(f)
        report = Path(tmp) / "report.txt"
        try:
            proc = subprocess.run([sys.executable, "-m", _MODULE, "--intree", str(src), "--outtree", str(out),
                                   "--reportfile", str(report)], capture_output=True, text=True, cwd=tmp,
                                  timeout=_TIMEOUT_S, preexec_fn=die_with_parent)
        except subprocess.TimeoutExpired:
            result.error = f"tf_upgrade_v2 did not finish within {_TIMEOUT_S} s"
            return result
        if proc.returncode != 0 or not report.exists():
            result.error = f"tf_upgrade_v2 failed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-500:]}"
            return result
        _parse(report.read_text(), back, result)
        for copy, user in back.items():
            rewritten = out / Path(copy).relative_to(src)
            if rewritten.exists() and user not in result.failed:
                result.rewritten[user] = rewritten.read_text()
    return result


def _parse(text: str, back: dict[str, str], result: UpgradeResult) -> None:
    current = None
    for line in text.splitlines():
        m = re.search(r"Detected (\d+) issues", line)
        if m and result.issues_reported is None:
            result.issues_reported = int(m.group(1))
        section = _SECTION.match(line)
        if section:
            current = back.get(section.group("path"))
            if current:
                result.entries.setdefault(current, [])
            continue
        if current is None:
            continue
        if line.startswith("ERROR: Failed to parse"):
            result.failed[current] = "tf_upgrade_v2 could not parse this file"
            continue
        entry = _ENTRY.match(line)
        if entry:
            result.entries[current].append(UpgradeEntry(int(entry.group("line")), int(entry.group("col")),
                                                        entry.group("level"), entry.group("msg")))
