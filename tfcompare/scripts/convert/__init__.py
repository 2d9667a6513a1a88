"""`tfcompare convert OLD.py -o NEW.py`: a TF2 rewrite of a TF1 training script, proven by `pair` to train the same.

The TF1 script runs (in pair's TF1 child setting) to its first training step; the graph it built there is
translated op by op into a `tf.Module`, a Keras optimizer with TF1's settings and a `@tf.function` step, and
the script's own code around it is carried over (`writer`, `ops`, `source`). Then `pair OLD NEW` runs and its
verdict is the verdict of the conversion (with `--dropout off` when the converted step has a live dropout: two
processes cannot draw the same masks; the written script keeps its dropout). It sits above `pair` and `run_tf1` in
`tfcompare.scripts`: its reading of the TF1 script is their child, its proof is `pair`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from pathlib import Path

from tfcompare.core.errors import legacy_hint
from tfcompare.core.results import json_text
from tfcompare.scripts.pair import AGREE, PairOptions, PairResult, pair_scripts
from tfcompare.scripts.child.dropout import AS_WRITTEN, OFF
from tfcompare.scripts.child import processes
from tfcompare.scripts.child.processes import OverLimit, output_tail, pair_folder, run_child

__all__ = ["ConvertOptions", "ConvertResult", "convert_script", "WRITTEN_AGREES", "WRITTEN_DIFFERS", "FAILED",
           "STYLES"]

WRITTEN_AGREES, WRITTEN_DIFFERS, FAILED = "agree", "differ", "failed"
STYLES = ("module", "keras")  # the model as a tf.Module, or as a keras.Model of Keras layers


@dataclasses.dataclass(frozen=True)
class ConvertOptions:
    """ARGS both scripts get; the time limit of the TF1 run and of each side of the pair; steps pair compares;
    the model's style (STYLES)."""

    args: tuple[str, ...] = ()
    timeout_s: float = 120.0
    steps: int = 3
    check: bool = True  # run pair on the result
    style: str = "module"


@dataclasses.dataclass
class ConvertResult:
    tf1_script: str
    tf2_script: str
    status: str = FAILED
    error: str = ""
    traceback: str = ""
    todos: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    pair: PairResult | None = None
    proof: str = ""  # how pair ran, when not as written (dropout off, and why)
    wall_s: float = 0.0
    style: str = "module"  # what the TF2 script holds the model in: a tf.Module or a keras.Model

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def json_text(self) -> str:
        return json_text(self.to_json())  # NaN and inf as strings: a failing script's loss stays valid JSON

    def lines(self) -> list[str]:
        out = [f"convert {self.tf1_script} (TF1) -> {self.tf2_script} (TF2)"]
        if self.status == FAILED and self.pair is None:
            out.append(f"FAILED: {self.error}")
            if self.traceback:
                out += ["", self.traceback.rstrip()]
            return out + [f"note: {n}" for n in self.notes]
        out.append(f"wrote {self.tf2_script}" + (f" with {len(self.todos)} TODO(tfcompare) mark(s):" if self.todos
                                                 else " (nothing left to do by hand)"))
        out += [f"  TODO: {t}" for t in self.todos]
        out += [f"note: {n}" for n in self.notes]
        if self.proof:
            out.append(f"proof: {self.proof}")
        if self.pair is not None:
            out += ["", *self.pair.lines(), ""]
            out.append("CONVERTED: the TF2 script trains as the TF1 script does (pair agrees)"
                       if self.status == WRITTEN_AGREES else
                       f"NOT PROVEN: pair says {self.pair.status}; the TF2 script is written, check it by hand")
        return out


def _read_tf1(old: Path, new: Path, options: ConvertOptions, folder: Path, limit: int) -> dict:
    report = folder / "convert.json"
    ended = run_child(["-m", "tfcompare.scripts.convert.child", str(old), str(new), str(report), options.style,
                       *options.args],
                      old.parent, folder, options.timeout_s, grace_s=None, memory_limit_bytes=limit)
    if isinstance(ended, OverLimit):
        return {"status": "failed", "traceback": output_tail(folder, "tf1"), "error": str(ended)}
    if not report.exists():
        return {"status": "failed", "traceback": output_tail(folder, "tf1"),
                "error": (f"the TF1 script reached no training step within {options.timeout_s:g} s"
                          if ended == "timeout" else f"tfcompare convert's child ended ({ended}) without a report")}
    return json.loads(report.read_text())


def convert_script(tf1_script: str | Path, tf2_script: str | Path,
                   options: ConvertOptions = ConvertOptions()) -> ConvertResult:
    """Write the TF2 rewrite of `tf1_script` to `tf2_script`, then pair them; `status` is pair's verdict."""
    if options.style not in STYLES:
        raise ValueError(f"style {options.style!r} is not one of {', '.join(STYLES)}")
    started = time.perf_counter()
    old, new = Path(tf1_script).resolve(), Path(tf2_script).resolve()
    result = ConvertResult(str(tf1_script), str(tf2_script), style=options.style)
    limit = processes.memory_limit()  # one for the command: its child, then its proof's two sides together
    folder = pair_folder("tfcompare-convert-")
    try:
        report = _read_tf1(old, new, options, folder, limit)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result.todos, result.notes = list(report.get("todos", [])), list(dict.fromkeys(report.get("notes", [])))
    if report["status"] != "ok":
        result.error = report.get("error") or ("the TF1 script ran to its end without a training step (a Session.run "
                                                "of an optimizer's train op): there is no graph to convert")
        if report["status"] == "crashed":
            result.error = f"the TF1 script failed before its first training step: {result.error}"
            result.error += legacy_hint(result.error, str(tf1_script))  # pair's TF1 side's advice (tf-keras)
        source = old.read_text(errors="replace")
        if "GradientTape" in source and "Session" not in source:
            result.error += ("; this script uses tf.GradientTape and no Session: it reads like a TF2 script already "
                             "(convert takes a TF1 script)")
        result.traceback = report.get("traceback", "")
        result.wall_s = time.perf_counter() - started
        return result
    if options.check:
        live = report.get("dropout", [])
        if live:
            result.proof = (f"pair runs with dropout off on both sides (--dropout off), because the TF1 training step "
                            f"has a live dropout ({'; '.join(d['how'] for d in live)}): two processes draw different "
                            f"masks, so live dropout cannot agree step by step; {tf2_script} keeps its dropout")
        result.pair = pair_scripts(old, new, PairOptions(steps=options.steps, timeout_s=options.timeout_s,
                                                         args=options.args, dropout=OFF if live else AS_WRITTEN,
                                                         memory_limit_bytes=limit))
        result.status = WRITTEN_AGREES if result.pair.status == AGREE else WRITTEN_DIFFERS
    else:
        result.status = WRITTEN_DIFFERS
    result.wall_s = time.perf_counter() - started
    return result
