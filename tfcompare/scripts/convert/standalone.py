"""The written TF2 script run on its own, as Python runs it, for its first training steps: `pair` proves the steps
tfcompare observed; this says whether the file itself runs (its `tf.function`s traced as written, its own data,
its prints), stopped once its optimizers have taken STEPS steps (the child: `alone_child`). Known dataset
downloads get pair's seeded synthetic data (`child.loaders`), said on the line: the check is of the code, not of
the network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tfcompare.scripts.child.processes import OverLimit, ended_text, pair_folder, run_child
from tfcompare.scripts.child.workdir import working_copy

__all__ = ["run_alone", "alone_line"]


def run_alone(new: Path, cwd: Path, steps: int, args: tuple, timeout_s: float, limit: int) -> dict:
    """Run NEW.py on its own in a child (in a working copy of its folder `cwd`, ARGS), stopped after `steps`
    training steps."""
    folder = pair_folder("tfcompare-alone-")
    report = folder / "alone.json"
    try:
        ended = run_child(["-m", "tfcompare.scripts.convert.alone_child", str(new), str(report), str(steps), *args],
                          working_copy(cwd, folder, "tf2"), folder, timeout_s, grace_s=None,
                          memory_limit_bytes=limit, side="tf2")
        if report.exists():
            return json.loads(report.read_text())
        if isinstance(ended, OverLimit):
            return {"steps": 0, "ended": "failed", "error": str(ended), "where": ""}
        if ended == "timeout":
            return {"steps": 0, "ended": "timeout", "error": "", "where": "", "timeout_s": timeout_s}
        return {"steps": 0, "ended": "failed", "error": ended_text("the TF2 script", ended, 0), "where": ""}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def alone_line(alone: dict) -> str:
    """One line for the console: how the written script ran on its own."""
    head = "on its own (python NEW.py, its tf.functions traced as written" + (
        "; " + "; ".join(alone["notes"]) if alone.get("notes") else "") + ")"
    if alone["ended"] == "failed":
        where = f" at {alone['where']}" if alone.get("where") else ""
        return f"{head}: FAILED after {alone['steps']} training step(s){where}: {alone['error']}"
    if alone["ended"] == "timeout":
        return f"{head}: no training step within {alone.get('timeout_s', 0):g} s (not judged)"
    if alone["ended"] == "stopped":
        return f"{head}: ran {alone['steps']} training step(s) without error, then was stopped"
    return f"{head}: ran to its end ({alone['ended']}) after {alone['steps']} training step(s), without error"
