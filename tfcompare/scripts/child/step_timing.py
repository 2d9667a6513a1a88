"""Timing both training steps of a pair, interleaved across its two processes, with `core.timing`'s timer.

After the comparison each side times its own step on TF1's first batch: TF1 the script's `Session.run` of its
train op (the batch fed, so no pipeline hands out another), TF2 the script's step function traced, as the script
runs it. The two processes take turns through marker files in the pair's folder: first each calibrates its block
(its first call timed on its own), then every round runs one block of each side, the side that starts rotating
each round; the side not running waits, asleep, so the one timed has the machine. Each side writes its samples
to `timing-<side>.json`; the parent pairs them by round (`core.timing.paired_ratio`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

from tfcompare.core.files import write_atomic
from tfcompare.core.timing import Timer, rotated

__all__ = ["ROUNDS", "take_turns", "cannot_time", "load"]

ROUNDS = 12  # 12 rounds of >= 20 ms blocks: about 1 s of timing for a small step, a 95% interval on the ratio
_SIDES = ["tf1", "tf2"]
_POLL_S = 0.001


def _other(side: str) -> str:
    return "tf2" if side == "tf1" else "tf1"


def _wait(path: Path, folder: Path, other: str, deadline: float) -> bool:
    """Until `path` exists; False once the other side said it cannot time, ended (its record written without
    a ready mark), or the deadline passed."""
    while not path.exists():
        if (folder / f"timing.{other}.none").exists() or time.monotonic() > deadline:
            return False
        if other == "tf2" and (folder / "tf2.json").exists() and not (folder / "timing.tf2.ready").exists():
            return False
        time.sleep(_POLL_S)
    return True


def cannot_time(folder: Path, side: str, why: str) -> None:
    """This side will not time (a `fit` step, no traced step, a failure): the other side stops waiting."""
    marker = folder / f"timing.{side}.none"
    if not marker.exists() and not (folder / f"timing.{side}.ready").exists():
        write_atomic(marker, why.encode())


def take_turns(side: str, folder: Path, fn: Callable[[], object], *, rounds: int = ROUNDS,
               timer: Timer | None = None, wait_s: float = 120.0, traces: Callable[[], int] | None = None) -> bool:
    """Time `fn` (one training step, its result on the host) in turns with the other side; True when done."""
    timer = timer or Timer()
    other = _other(side)
    write_atomic(folder / f"timing.{side}.ready", b"")
    deadline = time.monotonic() + wait_s
    if not _wait(folder / f"timing.{other}.ready", folder, other, deadline):
        return False
    schedule = [("calibrate", s) for s in _SIDES] + [(r, s) for r in range(rounds) for s in rotated(_SIDES, r)]
    out = {"samples": [], "order": [], "first_call_s": None, "calls_per_block": None, "load": None,
           "traces_before": traces() if traces else None}
    calls = 1
    for i, (turn, who) in enumerate(schedule):
        if who != side:
            continue
        if i and not _wait(folder / f"timing.turn.{i - 1}", folder, other, deadline):
            return False
        if turn == "calibrate":
            out["first_call_s"] = timer.first_call(fn)[0]
            calls = out["calls_per_block"] = timer.calibrate(fn)
        else:
            out["samples"].append(timer.time_block(fn, calls) / calls)
            out["order"].append(rotated(_SIDES, turn)[0])
        write_atomic(folder / f"timing.turn.{i}", b"")
    out["traces_after"] = traces() if traces else None
    out["load"] = os.getloadavg()[0]
    write_atomic(folder / f"timing-{side}.json", json.dumps(out).encode())
    return True


def load(folder: Path, side: str) -> dict | None:
    try:
        return json.loads((folder / f"timing-{side}.json").read_text())
    except (OSError, ValueError):
        return None
