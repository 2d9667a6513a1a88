"""`tfcompare run-tf1 SCRIPT`: does a TF1 script run on the installed TensorFlow? Check the reference before pairing.

The script runs unchanged in one child, the same one `pair` runs its TF1 side in (`child`): `import tensorflow`
as `tensorflow.compat.v1`, the legacy runtime (`tf.contrib`, `tf.estimator`), the known loaders replaced by
seeded synthetic data, and each training `Session.run` observed; it is stopped after K steps or its time limit.
Interrupted (Ctrl-C, SIGTERM, SIGHUP), the child is stopped and the steps it saw so far are the result (the child
rewrites them to its progress file after each step).
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import time
from pathlib import Path

from tfcompare.core.errors import legacy_hint
from tfcompare.core.results import json_text
from tfcompare.scripts.child.dropout import AS_WRITTEN
from tfcompare.scripts.child.processes import OverLimit, ended_text, output_tail, pair_folder, run_child
from tfcompare.scripts.child.record import load, load_progress

__all__ = ["RunTF1Result", "run_tf1", "TRAINED", "RAN", "FAILED", "NON_FINITE", "INTERRUPTED"]

TRAINED, RAN, FAILED, NON_FINITE, INTERRUPTED = "trained", "ran", "failed", "non-finite", "interrupted"


@dataclasses.dataclass
class RunTF1Result:
    script: str
    steps: int  # the most steps observed before the script is stopped
    args: list[str] = dataclasses.field(default_factory=list)
    # trained (K steps, or some and then its end) | ran (to its end, no step) | non-finite (a step's loss is inf or
    # NaN) | interrupted (the steps until then) | failed
    status: str = FAILED
    losses: list[float] = dataclasses.field(default_factory=list)
    error: str = ""
    traceback: str = ""
    output: str = ""  # the last lines the script printed
    notes: list[str] = dataclasses.field(default_factory=list)
    optimizer: dict | None = None
    seconds: float = 0.0
    wall_s: float = 0.0
    interrupted: bool = False  # stopped by Ctrl-C, SIGTERM or SIGHUP: `losses` are the steps seen until then
    refused: bool = False  # the legacy runtime refused a removed API: `error` is the whole story (no traceback shown)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def json_text(self) -> str:
        return json_text(self.to_json())  # NaN and inf as strings: a failing script's loss stays valid JSON

    def lines(self) -> list[str]:
        out = [f"run-tf1 {self.script} (up to {self.steps} training steps)"]
        if self.output and not self.traceback:
            out += ["the script printed (last lines):", *[f"  | {line}" for line in self.output.splitlines()]]
        out += [f"  step {i}: loss {loss:.7g}" for i, loss in enumerate(self.losses, 1)]
        if self.status == TRAINED:
            out.append(f"TRAINED: {len(self.losses)} training step(s) observed, then the script was stopped"
                       if len(self.losses) >= self.steps else
                       f"TRAINED: {len(self.losses)} training step(s) observed, and the script ran to its end")
        elif self.status == RAN:
            out.append("RAN to its end without a training step tfcompare observes (a Session.run of an optimizer's "
                       "train op): the script only builds or runs a graph, or trains eagerly (tf.contrib.eager)")
        elif self.status in (NON_FINITE, INTERRUPTED):
            out.append(f"{self.status.upper()}: {self.error}")
        else:
            out.append(f"FAILED: {self.error}")
            if self.traceback and not self.refused:
                out += ["", self.traceback.rstrip()]
        out += [f"note: {n}" for n in self.notes]
        return out


_LOG = ("WARNING:", "INFO:", "E0000", "W0000", "I0000", "Instructions for updating")


def _printed(text: str, lines: int = 10) -> str:
    """What the script printed, without TensorFlow's own log and deprecation lines (each with the line after it)."""
    kept, skip = [], False
    for line in text.splitlines():
        if skip or line.startswith(_LOG):
            skip = line.startswith(("WARNING:tensorflow", "Instructions for updating"))
            continue
        kept.append(line)
    return "\n".join(kept[-lines:])


def run_tf1(script: str | Path, steps: int = 5, timeout_s: float = 120.0, args: tuple[str, ...] = ()) -> RunTF1Result:
    """Run `script` in pair's TF1 child for at most `steps` training steps and `timeout_s` seconds."""
    started = time.perf_counter()
    path = Path(script).resolve()
    result = RunTF1Result(str(script), steps, list(args))
    folder = pair_folder("tfcompare-run-tf1-")
    try:
        try:
            ended = run_child(["-m", "tfcompare.scripts.child.main", "tf1", str(path), str(folder), str(steps),
                               AS_WRITTEN, *args],
                              path.parent, folder, timeout_s)
        except KeyboardInterrupt:  # run_child has stopped the child: what it handed over is the result
            _interrupted(result, load_progress(folder, "tf1"), folder)
        else:
            if isinstance(ended, OverLimit):
                result.error = str(ended)
                result.traceback = output_tail(folder, "tf1")
            else:
                _fill(result, load(folder, "tf1"), ended, folder, timeout_s)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if result.status == TRAINED:
        _check_finite(result)
    result.wall_s = time.perf_counter() - started
    return result


def _take(result: RunTF1Result, progress: dict | None) -> None:
    """The steps, notes and optimizer of the child's progress file (see `record.save_progress`)."""
    if progress:
        result.losses, result.notes = list(progress["losses"]), list(progress["notes"])
        result.optimizer = progress["optimizer"]


def _interrupted(result: RunTF1Result, progress: dict | None, folder: Path) -> None:
    _take(result, progress)
    result.status, result.interrupted = INTERRUPTED, True
    result.output = _printed(output_tail(folder, "tf1", 400))
    bad = _first_non_finite(result.losses)
    result.error = (f"stopped after {len(result.losses)} training step(s); the steps so far are kept" +
                    (f" (the loss of step {bad} is {result.losses[bad - 1]}: not finite)" if bad else "")
                    if progress else "stopped before the script started")


def _first_non_finite(losses: list[float]) -> int:
    """The first step (from 1) whose loss is inf or NaN, or 0."""
    return next((i for i, x in enumerate(losses, 1) if not math.isfinite(x)), 0)


def _check_finite(result: RunTF1Result) -> None:
    """A script whose loss went inf or NaN did not train, whatever ran."""
    bad = _first_non_finite(result.losses)
    if bad:
        result.status = NON_FINITE
        result.error = (f"the loss of step {bad} is {result.losses[bad - 1]} (the first non-finite one, of "
                        f"{len(result.losses)} step(s) observed): the script ran, but it does not train")


def _no_record(result: RunTF1Result, ended, folder: Path, timeout_s: float) -> None:
    """The child ended without its record: stopped at the time limit, the script's own `os._exit` or a signal
    (its progress file says how many steps it saw), or tfcompare's child failed before the script started."""
    progress = load_progress(folder, "tf1")
    _take(result, progress)
    result.traceback = output_tail(folder, "tf1")
    if ended == "timeout":
        result.error = f"the script reached no end within {timeout_s:g} s and was stopped" + \
            (f", after {progress['steps']} training step(s)" if progress else "")
    elif progress is None:  # not the script's doing: it never started
        result.error = f"tfcompare's TF1 child ended ({ended}) before the script started: tfcompare failed"
    else:  # the script's own doing: what it printed, without TensorFlow's log
        result.traceback, result.output = "", _printed(output_tail(folder, "tf1", 400))
        if ended == 0:  # os._exit(0): the script's own end
            result.status = TRAINED if result.losses else RAN
            result.notes.append("the script ended its process itself (os._exit(0))")
        else:
            result.error = ended_text("the TF1 script", ended, progress["steps"])


def _fill(result: RunTF1Result, record, ended, folder: Path, timeout_s: float) -> None:
    if record is None:
        _no_record(result, ended, folder, timeout_s)
        return
    result.losses, result.notes, result.seconds = list(record.losses), list(record.notes), record.seconds
    result.output = _printed(output_tail(folder, "tf1", 400))
    result.optimizer = record.optimizer
    if ended == "timeout":
        result.error = (f"the script reached no end within {timeout_s:g} s and was stopped, after "
                        f"{record.steps} training step(s)")
        result.traceback = record.traceback
        return
    result.refused = record.refused
    if record.error:
        result.error = record.error + legacy_hint(record.error, result.script)
        if record.steps:
            result.error = f"after {record.steps} training step(s): {result.error}"
        result.traceback = record.traceback or output_tail(folder, "tf1")
        return
    result.status = TRAINED if record.steps else RAN
