"""`tfcompare run-tf1 SCRIPT`: does a TF1 script run on the installed TensorFlow? Check the reference before pairing.

The script runs unchanged in one child, the same one `pair` runs its TF1 side in (`child`): `import tensorflow`
as `tensorflow.compat.v1`, the legacy runtime (`tf.contrib`, `tf.estimator`), the known loaders replaced by
seeded synthetic data, and each training `Session.run` observed; it is stopped after K steps or its time limit.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

from tfcompare.core.errors import legacy_hint
from tfcompare.core.results import json_text
from tfcompare.scripts.child.dropout import AS_WRITTEN
from tfcompare.scripts.child.processes import OverLimit, output_tail, pair_folder, run_child
from tfcompare.scripts.child.record import load

__all__ = ["RunTF1Result", "run_tf1", "TRAINED", "RAN", "FAILED"]

TRAINED, RAN, FAILED = "trained", "ran", "failed"


@dataclasses.dataclass
class RunTF1Result:
    script: str
    steps: int  # the most steps observed before the script is stopped
    args: list[str] = dataclasses.field(default_factory=list)
    status: str = FAILED  # trained (K steps, or some and then its end) | ran (to its end, no step) | failed
    losses: list[float] = dataclasses.field(default_factory=list)
    error: str = ""
    traceback: str = ""
    output: str = ""  # the last lines the script printed
    notes: list[str] = dataclasses.field(default_factory=list)
    optimizer: dict | None = None
    seconds: float = 0.0
    wall_s: float = 0.0

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
        else:
            out.append(f"FAILED: {self.error}")
            if self.traceback:
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
        ended = run_child(["-m", "tfcompare.scripts.child.main", "tf1", str(path), str(folder), str(steps), AS_WRITTEN,
                           *args],
                          path.parent, folder, timeout_s)
        if isinstance(ended, OverLimit):
            result.error = str(ended)
            result.traceback = output_tail(folder, "tf1")
        else:
            _fill(result, load(folder, "tf1"), ended, folder, timeout_s)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result.wall_s = time.perf_counter() - started
    return result


def _fill(result: RunTF1Result, record, ended, folder: Path, timeout_s: float) -> None:
    if record is None:
        result.error = (f"the script reached no end within {timeout_s:g} s and was stopped" if ended == "timeout"
                        else f"the script's process ended ({ended}) without a record")
        result.traceback = output_tail(folder, "tf1")
        return
    result.losses, result.notes, result.seconds = list(record.losses), list(record.notes), record.seconds
    result.output = _printed(output_tail(folder, "tf1", 400))
    result.optimizer = record.optimizer
    if ended == "timeout":
        result.error = (f"the script reached no end within {timeout_s:g} s and was stopped, after "
                        f"{record.steps} training step(s)")
        result.traceback = record.traceback
        return
    if record.error:
        result.error = record.error + legacy_hint(record.error, result.script)
        if record.steps:
            result.error = f"after {record.steps} training step(s): {result.error}"
        result.traceback = record.traceback or output_tail(folder, "tf1")
        return
    result.status = TRAINED if record.steps else RAN
