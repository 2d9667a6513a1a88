"""The children of a command (a pair's two sides, run-tf1's, convert's): each started under a keeper (`keeper`), all
of them together under ONE memory limit and each under a time limit, their output kept as a bounded tail
(`output`), and killed with everything they started at every exit, so no script (nor a process it forked,
detached with `setsid`, or started with an empty environment) outlives the command, even a SIGKILLed one."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tfcompare.core.budget import available_bytes
from tfcompare.core.children import OWNER, Descendants, kill_strays, spawning, sub_reaper
from tfcompare.core.files import pid_temp_dir, process_stamp, remove_dead_temp_dirs
from tfcompare.core.keeper import Kept
from tfcompare.core.warm_start import warm_up
from tfcompare.scripts.child.dropout import AS_WRITTEN
from tfcompare.scripts.child.output import OUTPUT_TAIL_BYTES, Tail, output_tail
from tfcompare.scripts.child.workdir import working_copy

__all__ = ["run_sides", "run_child", "output_tail", "OverLimit", "pair_folder", "memory_limit", "MEMORY_SHARE",
           "OUTPUT_TAIL_BYTES", "ended_text"]

_POLL_S = 0.05
_SCAN_EVERY = 2  # polls between walks of the process tree (memory, new descendants): ~1 ms each
_TEMP_PREFIX = "tfcompare-pair-"
MEMORY_SHARE = 0.5  # of the memory available when a command starts: all its children together may hold it
_LIMIT_IS = "the limit is half the memory available when the command started, for everything its scripts start"


class OverLimit(str):
    """Why a side was stopped for its memory (what `run_sides` reports instead of an exit code)."""


def memory_limit() -> int:
    """The command's one limit for all its children together: `MEMORY_SHARE` of the memory available now (call it
    once, when the command starts), so the machine stays usable while the scripts run."""
    return int(available_bytes() * MEMORY_SHARE)


def pair_folder(prefix: str = _TEMP_PREFIX) -> Path:
    """A new folder for one pair's records (and its scripts' temporary files), after removing what a killed
    `tfcompare pair` (or `run-tf1`) left (only folders marked as made by a process that has ended)."""
    parent = Path(tempfile.gettempdir())
    remove_dead_temp_dirs(parent, prefix)
    return pid_temp_dir(parent, prefix)


def _start(side: str, script: Path, folder: Path, steps: int, args: tuple[str, ...], dropout: str,
           timed: bool, warm: bool) -> tuple[Kept, Tail]:
    return _popen(side, ["-m", "tfcompare.scripts.child.main", side, str(script), str(folder), str(steps), dropout,
                         *args], working_copy(script.parent, folder, side), folder, pair=True, timed=timed, warm=warm)


PAIR_SEED_ENV, PAIR_SEED = "TFCOMPARE_PAIR_SEED", 1234


def _popen(side: str, argv: list[str], cwd: Path, folder: Path, pair: bool = False,
           timed: bool = False, warm: bool = False) -> tuple[Kept, Tail]:
    """`python ARGV` in `cwd` under its keeper, its output read into a `Tail` (FOLDER/SIDE.out)."""
    import sys

    import tfcompare

    env = dict(os.environ)
    # both scripts run at once: on a GPU, TensorFlow would give the first all of its memory
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    if side == "tf2" and tfcompare.LEGACY_KERAS_SET_HERE:
        env["TF_USE_LEGACY_KERAS"] = "0"  # tf.keras is Keras 3 for a TF2 script, as when its author runs it
        env.pop("TFCOMPARE_SET_TF_USE_LEGACY_KERAS", None)  # and the child keeps it so (tfcompare/__init__.py)
    if pair:  # both scripts' unseeded NumPy / Python random draw alike (a script's own seed replaces it): child.main
        env[PAIR_SEED_ENV] = str(PAIR_SEED)
    if timed:  # both training steps timed in turns after the comparison: child.step_timing
        env["TFCOMPARE_PAIR_TIMING"] = "1"
    env[OWNER] = process_stamp()  # a second net (kill_strays) under the keeper, for what keeps its environment
    # AutoGraph's generated files and the script's own temporary files go with the pair's folder
    env["TMPDIR"] = str(folder / "tmp")
    (folder / "tmp").mkdir(exist_ok=True)
    read, write = os.pipe()
    try:
        kept = Kept([sys.executable, *argv], cwd=cwd, keeper_cwd=folder, env=env, stdout=write, warm=warm)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return kept, Tail(read, folder / f"{side}.out", side)


_ENVIRONMENT = re.compile(r"\b(environ|putenv|unsetenv)\b")


def _sets_environment(argv: list[str]) -> bool:
    """Whether a script the child runs may set the environment before importing TensorFlow (`TF_CPP_MIN_LOG_LEVEL`,
    `TF_ENABLE_ONEDNN_OPTS`, `CUDA_VISIBLE_DEVICES`): TensorFlow reads some of it as it is imported, so that child
    imports its own, not the warm start's (`core.warm_start`)."""
    for arg in argv:
        if arg.endswith(".py") and os.path.isfile(arg):
            try:
                if _ENVIRONMENT.search(Path(arg).read_text(encoding="utf-8", errors="replace")):
                    return True
            except OSError:
                return True
    return False


def _warm_up(argv: list[str]) -> bool:
    """Whether the child of ARGV starts warm; this command's warm process (`core.warm_start`) started if so."""
    if _sets_environment(argv):
        return False
    warm_up(dict(os.environ, **{OWNER: process_stamp()}))  # marked as this command's, as its children are
    return True


def _gb(n: int) -> str:
    return f"{n / 1e9:.3g} GB"


def _held(n: int) -> str:
    """A resident size next to the limit it passed: to the MB, rounded up, so it never reads as the limit itself
    (1,500,000,100 bytes past a 1.5 GB limit read "1.500 GB" when rounded to the nearest: seen in CI)."""
    return f"{math.ceil(n / 1e6) / 1e3:.3f} GB"


def run_sides(tf1: Path, tf2: Path, folder: Path, steps: int, args: tuple[str, ...], timeout_s: float,
              memory_limit_bytes: int | None = None, dropout: str = AS_WRITTEN, timed: bool = False) -> dict:
    """Run both sides (`dropout`: one of `dropout.MODES`); returns {side: None | "timeout" | OverLimit | exit code}
    for what each process did.

    TF1's time limit counts from the start; TF2's from TF1's record (it waits for TF1's weights and batches). When
    all the processes of both sides together hold more than `memory_limit_bytes` resident (default
    `memory_limit()`), all of them are killed.
    """
    limit = memory_limit_bytes or memory_limit()
    kill_strays()  # what a pair killed by SIGKILL left running
    warm = {side: _warm_up([str(script)]) for side, script in (("tf1", tf1), ("tf2", tf2))}
    with sub_reaper():
        with spawning():
            started: dict[str, tuple[Kept, Tail]] = {}
            try:
                for side, script in (("tf1", tf1), ("tf2", tf2)):
                    started[side] = _start(side, script, folder, steps, args, dropout, timed, warm[side])
            except BaseException:
                _end(Descendants({side: kept.pid for side, (kept, _) in started.items()}), started.values())
                raise
            tree = Descendants({side: kept.pid for side, (kept, _) in started.items()})
        try:
            return _watch({side: kept for side, (kept, _) in started.items()}, tree, folder, timeout_s, limit)
        finally:
            _end(tree, started.values())


def _end(tree: Descendants, started) -> None:
    """Kill every process of the tree, then take what they printed (the pipes are closed once all are gone)."""
    tree.kill()
    for kept, tail in started:
        kept.reap()
        tail.finish()


def run_child(argv: list[str], cwd: Path, folder: Path, timeout_s: float, grace_s: float | None = 10.0,
              memory_limit_bytes: int | None = None, side: str = "tf1") -> object:
    """One child (`run-tf1`'s, `convert`'s: `python ARGV` in `cwd`, the tail of its output in FOLDER/SIDE.out),
    under the same limits and tree-kill as a pair's: returns None | "timeout" | OverLimit | exit code. At its time
    limit the script gets Ctrl-C first (its child then saves the steps so far and where the script was), `grace_s`
    to write that (None: no Ctrl-C), then everything it started is killed. The memory limit (default
    `memory_limit()`) is for all its processes together. `side` "tf2" for a child that runs a TF2 script (convert's
    rewrite on its own, its checkpoint): it gets the environment of a pair's TF2 side (tf.keras is Keras 3 with
    the legacy extra installed, as when the script's author runs it)."""
    limit = memory_limit_bytes or memory_limit()
    kill_strays()
    warm = _warm_up(argv)
    with sub_reaper():
        with spawning():
            proc, tail = _popen(side, argv, cwd, folder, warm=warm)
            tree = Descendants({side: proc.pid})
        try:
            deadline, polls = time.monotonic() + timeout_s, 0
            while (code := proc.poll()) is None:
                _, used = tree.scan() if polls % _SCAN_EVERY == 0 else ({}, 0)
                polls += 1
                if used > limit:
                    return OverLimit(f"the {side.upper()} script used more than {_gb(limit)} of memory ({_held(used)} "
                                     f"resident in its processes; {_LIMIT_IS}): stopped")
                if time.monotonic() > deadline:
                    try:
                        if grace_s is None:
                            return "timeout"
                        proc.send_signal(signal.SIGINT)
                        proc.wait(timeout=grace_s)
                    except (ProcessLookupError, subprocess.TimeoutExpired):
                        pass
                    return "timeout"
                time.sleep(_POLL_S)
            return code
        finally:
            _end(tree, [(proc, tail)])


def _over(limit: int, by_side: dict[str, int], total: int) -> OverLimit:
    """Why the pair was stopped for its memory: the one side that held it, or both together."""
    held = {side: n for side, n in by_side.items() if n}
    if len(held) == 1:
        side = next(iter(held))
        return OverLimit(f"the {side.upper()} script used more than {_gb(limit)} of memory ({_held(total)} resident in "
                         f"its processes; {_LIMIT_IS}): stopped")
    return OverLimit(f"the scripts used more than {_gb(limit)} of memory together (TF1 {_held(by_side.get('tf1', 0))}, "
                     f"TF2 {_held(by_side.get('tf2', 0))} resident in their processes; {_LIMIT_IS}): stopped")


def _watch(procs: dict[str, Kept], tree: Descendants, folder: Path, timeout_s: float, limit: int) -> dict:
    ended: dict[str, object] = {"tf1": None, "tf2": None}
    start = time.monotonic()
    deadline = {"tf1": start + timeout_s, "tf2": None}
    polls = 0
    while any(v is None for v in ended.values()):
        now = time.monotonic()
        by_side, total = tree.scan() if polls % _SCAN_EVERY == 0 else ({}, 0)
        polls += 1
        if total > limit:  # both sides and all they started, also what a side that ended left running
            tree.kill()
            stopped = _over(limit, by_side, total)
            return {side: stopped if code is None else code for side, code in ended.items()}
        for side, proc in procs.items():
            if ended[side] is not None:
                continue
            code = proc.poll()
            if code is not None:
                ended[side] = code
            elif deadline[side] is not None and now > deadline[side]:
                tree.kill(side)
                ended[side] = "timeout"
        if deadline["tf2"] is None and (folder / "tf1.json").exists():
            deadline["tf2"] = time.monotonic() + timeout_s
        if ended["tf1"] is not None and not (folder / "tf1.json").exists():
            (folder / "tf1.failed").touch()
            tree.kill("tf2")
            ended["tf2"] = ended["tf2"] if ended["tf2"] is not None else "not run"
        time.sleep(_POLL_S)
    return ended


def ended_text(label: str, ended, steps: int | None) -> str:
    """How a script's process ended when it left no record (`os._exit`, a signal), said of the script: `label`
    ("the TF1 script"), `ended` (its exit code, negative for a signal), `steps` (training steps recorded; None
    when unknown). One wording for run-tf1, convert and pair."""
    when = "" if steps is None else (" before its first training step" if not steps else
                                     f" after training step {steps}")
    if isinstance(ended, int) and ended < 0:
        try:
            name = signal.Signals(-ended).name
        except ValueError:
            name = f"signal {-ended}"
        return f"{label}'s process was ended by {name}{when}"
    return f"{label} exited with code {ended}{when}"
