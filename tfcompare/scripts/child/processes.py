"""The two children of a pair: started together (both import TensorFlow at once), each under a time limit and
a memory limit, and killed with everything they started at every exit, so no script (nor a process it forked or
detached with `setsid`) outlives `tfcompare pair`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tfcompare.core.budget import available_bytes
from tfcompare.core.children import OWNER, Descendants, die_with_parent, kill_strays, spawning, sub_reaper
from tfcompare.core.files import pid_temp_dir, process_stamp, remove_dead_temp_dirs
from tfcompare.scripts.child.dropout import AS_WRITTEN

__all__ = ["run_sides", "run_child", "output_tail", "OverLimit", "pair_folder", "memory_limit", "ended_text"]

_POLL_S = 0.05
_SCAN_EVERY = 2  # polls between walks of the process tree (memory, new descendants): ~1 ms each
_TEMP_PREFIX = "tfcompare-pair-"


class OverLimit(str):
    """Why a side was stopped for its memory (what `run_sides` reports instead of an exit code)."""


def memory_limit() -> int:
    """Each side's limit: half the memory available when the pair starts (both sides run at once)."""
    return available_bytes() // 2


def pair_folder(prefix: str = _TEMP_PREFIX) -> Path:
    """A new folder for one pair's records (and its scripts' temporary files), after removing what a killed
    `tfcompare pair` (or `run-tf1`) left (only folders marked as made by a process that has ended)."""
    parent = Path(tempfile.gettempdir())
    remove_dead_temp_dirs(parent, prefix)
    return pid_temp_dir(parent, prefix)


def _start(side: str, script: Path, folder: Path, steps: int, args: tuple[str, ...], dropout: str) -> subprocess.Popen:
    return _popen(side, ["-m", "tfcompare.scripts.child.main", side, str(script), str(folder), str(steps), dropout,
                         *args], script.parent, folder)


def _popen(side: str, argv: list[str], cwd: Path, folder: Path) -> subprocess.Popen:
    import tfcompare

    env = dict(os.environ)
    # both scripts run at once: on a GPU, TensorFlow would give the first all of its memory
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    if side == "tf2" and tfcompare.LEGACY_KERAS_SET_HERE:
        env["TF_USE_LEGACY_KERAS"] = "0"  # tf.keras is Keras 3 for a TF2 script, as when its author runs it
    env[OWNER] = process_stamp()  # inherited by all it starts: found again if tfcompare is killed (kill_strays)
    # AutoGraph's generated files and the script's own temporary files go with the pair's folder
    env["TMPDIR"] = str(folder / "tmp")
    (folder / "tmp").mkdir(exist_ok=True)
    out = open(folder / f"{side}.out", "wb")
    try:
        return subprocess.Popen([sys.executable, *argv], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=cwd, env=env, start_new_session=True, preexec_fn=die_with_parent)
    finally:
        out.close()


def _gb(n: int) -> str:
    return f"{n / 1e9:.3g} GB"


def run_sides(tf1: Path, tf2: Path, folder: Path, steps: int, args: tuple[str, ...], timeout_s: float,
              memory_limit_bytes: int | None = None, dropout: str = AS_WRITTEN) -> dict:
    """Run both sides (`dropout`: one of `dropout.MODES`); returns {side: None | "timeout" | OverLimit | exit code}
    for what each process did.

    TF1's limit counts from the start; TF2's from TF1's record (it waits for TF1's weights and batches). A side
    whose processes together hold more than `memory_limit_bytes` resident (default `memory_limit()`) is killed.
    """
    limit = memory_limit_bytes or memory_limit()
    kill_strays()  # what a pair killed by SIGKILL left running
    with sub_reaper():
        with spawning():
            procs = {side: _start(side, script, folder, steps, args, dropout) for side, script in (("tf1", tf1),
                                                                                                   ("tf2", tf2))}
            tree = Descendants({side: proc.pid for side, proc in procs.items()})
        try:
            return _watch(procs, tree, folder, timeout_s, limit)
        finally:
            tree.kill()
            for proc in procs.values():
                proc.wait()


def run_child(argv: list[str], cwd: Path, folder: Path, timeout_s: float, grace_s: float | None = 10.0,
              memory_limit_bytes: int | None = None) -> object:
    """One TF1 child (`run-tf1`'s, `convert`'s: `python ARGV` in `cwd`, its output in FOLDER/tf1.out), under the
    same limits and tree-kill as a pair's: returns None | "timeout" | OverLimit | exit code. At its time limit the
    script gets Ctrl-C first (its child then saves the steps so far and where the script was), `grace_s` to write
    that (None: no Ctrl-C), then everything it started is killed."""
    limit = memory_limit_bytes or available_bytes()
    kill_strays()
    with sub_reaper():
        with spawning():
            proc = _popen("tf1", argv, cwd, folder)
            tree = Descendants({"tf1": proc.pid})
        try:
            deadline, polls = time.monotonic() + timeout_s, 0
            while (code := proc.poll()) is None:
                used = tree.scan() if polls % _SCAN_EVERY == 0 else {}
                polls += 1
                if used.get("tf1", 0) > limit:
                    return OverLimit(f"the TF1 script used more than {_gb(limit)} of memory ({_gb(used['tf1'])} "
                                     "resident in its processes): stopped")
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
            tree.kill()
            proc.wait()


def _watch(procs: dict, tree: Descendants, folder: Path, timeout_s: float, limit: int) -> dict:
    ended: dict[str, object] = {"tf1": None, "tf2": None}
    start = time.monotonic()
    deadline = {"tf1": start + timeout_s, "tf2": None}
    polls = 0
    while any(v is None for v in ended.values()):
        now = time.monotonic()
        used = tree.scan() if polls % _SCAN_EVERY == 0 else {}
        polls += 1
        for side, proc in procs.items():
            if ended[side] is not None:
                continue
            code = proc.poll()
            if code is not None:
                ended[side] = code
            elif used.get(side, 0) > limit:
                tree.kill(side)
                ended[side] = OverLimit(f"the {side.upper()} script used more than {_gb(limit)} of memory "
                                        f"({_gb(used[side])} resident in its processes; the limit is half the memory "
                                        "available when the pair started, as both scripts run at once): stopped")
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


def output_tail(folder: Path, side: str, lines: int = 15) -> str:
    path = folder / f"{side}.out"
    if not path.exists():
        return ""
    text = path.read_text(errors="replace").splitlines()
    keep = [t for t in text if not t.startswith(("WARNING: All log messages", "I0000 ", "E0000 ", "W0000 "))]
    return "\n".join(keep[-lines:])
