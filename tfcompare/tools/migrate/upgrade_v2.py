"""TensorFlow's own `tf_upgrade_v2`, run for real, one file at a time: what it renamed, what it said, what it wrote.

The tool is given the text of each file (never the user's path), in one child process with a time limit per file
and for the whole run; its `TMPDIR` is a temporary folder removed afterwards (the tool leaves empty `tmp*` files
when it fails on a file), named with this process's id so that the next run removes one a killed run left. One
file it cannot convert (a pasta `AnnotationError`, say) is that file's note, naming the error; the others are
still compared. If the tool is missing or its process dies, the rest of the
report stands, with the files it finished kept.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tfcompare.core.children import die_with_parent
from tfcompare.core.files import pid_temp_dir, remove_dead_temp_dirs

__all__ = ["UpgradeEntry", "UpgradeResult", "UpgradeRun"]

_STEM = "tfcompare-migrate-"  # its temporary folders: tfcompare-migrate-<pid>-<random> in TMPDIR
_FILE_TIMEOUT_S = 60
_TIMEOUT_S = 600
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
    error: str | None = None  # the tool as a whole did not run (or its process died: `failed` says where)
    issues_reported: int | None = None  # the issues it reported "require attention", as its "Detected N issues"


# Runs in the child: one JSON line per file, written as soon as the file is done, so a run cut short keeps them.
_CHILD = r"""
import json, signal, sys, traceback
from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2

class _Late(Exception):
    pass

def _late(signum, frame):
    raise _Late()

signal.signal(signal.SIGALRM, _late)
upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec(import_rename=False,
                                                                   upgrade_compat_v1_import=True))
print(json.dumps({"ready": True}), flush=True)
for i, (name, text) in enumerate(json.load(open(sys.argv[1], encoding="utf-8"))):
    out = {"i": i}
    signal.alarm(LIMIT)
    try:
        done, new_text, log, errors = upgrader.update_string_pasta(text, name)
        if done:
            out.update(log=log, errors=errors, text=new_text)
        else:
            out["error"] = "it could not parse this file: " + (log[-1].splitlines()[-1] if log else "")
    except _Late:
        out["error"] = "it did not finish this file within LIMIT s"
    except BaseException as exc:  # pasta's AnnotationError, a RecursionError, ...
        out["error"] = "it crashed on this file: " + f"{type(exc).__name__}: {exc}"[:300]
    finally:
        signal.alarm(0)
    print(json.dumps(out), flush=True)
"""


class UpgradeRun:
    """The tool started on each `{user path: text}` in the background (its TensorFlow import overlaps the scan's);
    `result()` waits for it and maps everything it says back to the user's paths. Use as a context manager: on
    leaving, the child is gone and its temporary folder removed, whatever happened."""

    def __init__(self, sources: dict[str, str]):
        self.names = list(sources)
        self._proc = self._tmp = None
        if not sources:
            return
        parent = Path(tempfile.gettempdir())
        remove_dead_temp_dirs(parent, _STEM)  # what a killed run left: named by its process id, which has ended
        self._tmp = pid_temp_dir(parent, _STEM)
        request = self._tmp / "request.json"
        request.write_text(json.dumps([[Path(n).name, sources[n]] for n in self.names]), encoding="utf-8")
        env = {**os.environ, "TMPDIR": str(self._tmp), "TF_CPP_MIN_LOG_LEVEL": "3"}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD.replace("LIMIT", str(_FILE_TIMEOUT_S)), str(request)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self._tmp,
                env=env, preexec_fn=die_with_parent)
        except BaseException:
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def result(self) -> UpgradeResult:
        result = UpgradeResult({}, {}, {})
        if self._proc is None:
            return result
        try:
            stdout, stderr = self._proc.communicate(timeout=_TIMEOUT_S)
            died = f"exit {self._proc.returncode}" if self._proc.returncode else None
        except subprocess.TimeoutExpired as exc:
            self._proc.kill()
            rest, stderr = self._proc.communicate()
            stdout = (exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or "") + (rest or "")
            died = f"it did not finish within {_TIMEOUT_S} s"
        lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
        if not lines:
            result.error = f"tf_upgrade_v2 did not start ({died or 'no output'}): {(stderr or '').strip()[-300:]}"
            return result
        issues = 0
        for out in lines[1:]:
            user = self.names[out["i"]]
            if "error" in out:
                result.failed[user] = f"tf_upgrade_v2 left this file out: {out['error']}"
                continue
            result.entries[user] = [UpgradeEntry(int(m["line"]), int(m["col"]), m["level"], m["msg"])
                                    for m in (_ENTRY.match(line) for line in out["log"]) if m]
            result.rewritten[user] = out["text"]
            issues += len(out["errors"])
        done = len(lines) - 1
        for i, user in enumerate(self.names[done:], done):
            where = "on this file" if i == done else "before this file"
            result.failed[user] = f"tf_upgrade_v2's process ended {where} ({died or 'no output'})"
        result.issues_reported = issues
        return result
