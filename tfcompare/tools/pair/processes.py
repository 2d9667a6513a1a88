"""The two children of a pair: started together (both import TensorFlow at once), each under a time limit,
killed as a process group at every exit, so no script outlives `tfcompare pair`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tfcompare.core.children import die_with_parent

__all__ = ["run_sides", "output_tail"]

_POLL_S = 0.05


def _start(side: str, script: Path, folder: Path, steps: int, args: tuple[str, ...]) -> subprocess.Popen:
    import tfcompare

    env = dict(os.environ)
    # both scripts run at once: on a GPU, TensorFlow would give the first all of its memory
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    if side == "tf2" and tfcompare.LEGACY_KERAS_SET_HERE:
        env["TF_USE_LEGACY_KERAS"] = "0"  # tf.keras is Keras 3 for a TF2 script, as when its author runs it
    out = open(folder / f"{side}.out", "wb")
    try:
        return subprocess.Popen([sys.executable, "-m", "tfcompare.tools.pair.child", side, str(script), str(folder),
                                 str(steps), *args], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=script.parent, env=env, start_new_session=True, preexec_fn=die_with_parent)
    finally:
        out.close()


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def run_sides(tf1: Path, tf2: Path, folder: Path, steps: int, args: tuple[str, ...], timeout_s: float) -> dict:
    """Run both sides; returns {side: None | "timeout" | exit code} for what each process did.

    TF1's limit counts from the start; TF2's from TF1's record (it waits for TF1's weights and batches).
    """
    procs = {"tf1": _start("tf1", tf1, folder, steps, args), "tf2": _start("tf2", tf2, folder, steps, args)}
    ended: dict[str, object] = {"tf1": None, "tf2": None}
    start = time.monotonic()
    deadline = {"tf1": start + timeout_s, "tf2": None}
    try:
        while any(v is None for v in ended.values()):
            now = time.monotonic()
            for side, proc in procs.items():
                if ended[side] is not None:
                    continue
                code = proc.poll()
                if code is not None:
                    ended[side] = code
                elif deadline[side] is not None and now > deadline[side]:
                    _kill(proc)
                    ended[side] = "timeout"
            if deadline["tf2"] is None and (folder / "tf1.json").exists():
                deadline["tf2"] = time.monotonic() + timeout_s
            if ended["tf1"] is not None and not (folder / "tf1.json").exists():
                (folder / "tf1.failed").touch()
                _kill(procs["tf2"])
                ended["tf2"] = ended["tf2"] if ended["tf2"] is not None else "not run"
            time.sleep(_POLL_S)
    finally:
        for proc in procs.values():
            _kill(proc)
    return ended


def output_tail(folder: Path, side: str, lines: int = 15) -> str:
    path = folder / f"{side}.out"
    if not path.exists():
        return ""
    text = path.read_text(errors="replace").splitlines()
    keep = [t for t in text if not t.startswith(("WARNING: All log messages", "I0000 ", "E0000 ", "W0000 "))]
    return "\n".join(keep[-lines:])
