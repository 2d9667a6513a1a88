"""Start a distributed mode's processes, wait for them with a limit, and always stop them.

Every process is started in its own session (so the whole group can be killed) with PR_SET_PDEATHSIG (so it dies
if tfcompare is killed), its stderr kept in a file for the error row. Ports are chosen free on 127.0.0.1 at run
time; a worker that cannot bind (another program took the port between choosing and binding) makes the harness
retry with new ports, then give a clear error. Every wait has a limit; Ctrl-C stops every process before it
propagates.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tfcompare.core.children import die_with_parent
from tfcompare.core.watchdog import check_interrupt

__all__ = ["DIST_MODES", "DistError", "supported", "run_distributed", "free_ports"]

HOST = "127.0.0.1"
DIST_MODES = {
    "tf2-mirrored": "MirroredStrategy over N logical CPU devices in one process",
    "tf2-multiworker": "MultiWorkerMirroredStrategy over N worker processes (TF_CONFIG, gRPC on 127.0.0.1)",
}
_PORT_ERRORS = ("Address already in use", "Could not start gRPC server", "Failed to add port")
_TRIES = 3


class DistError(RuntimeError):
    """A distributed mode that failed: which process, and the tail of its stderr."""


def supported(case, model) -> str | None:
    """Why the case cannot run distributed (None when it can): the step is split by the harness, so the model
    must expose its loss and a TF1-exact/`tf.Module` optimizer with `apply(grads, variables)`."""
    optimizer = getattr(model, "optimizer", None)
    if not callable(getattr(optimizer, "apply", None)) or type(optimizer).__module__.split(".")[0] == "keras":
        return "its TF2 side has no tf.Module optimizer with apply(grads, variables) (Keras 3 optimizers do not " \
               "support MultiWorkerMirroredStrategy)"
    if not callable(getattr(model, "loss", None)):
        return "its TF2 side has no loss(inputs)"
    return None


def free_ports(n: int) -> list[int]:
    """N ports free on 127.0.0.1 now (the OS's choice); they may be taken before a worker binds: see the retry."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind((HOST, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclasses.dataclass
class _Proc:
    task: int
    popen: subprocess.Popen
    log: Path

    def tail(self, lines: int = 6) -> str:
        try:
            text = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        keep = [t for t in text if t.strip() and not t.startswith(("I0000", "WARNING: All log", "E0000"))]
        return " | ".join(keep[-lines:])


def _start(spec: dict, folder: Path, task: int, threads: int) -> _Proc:
    path = folder / f"spec-{task}.json"
    path.write_text(json.dumps({**spec, "task": task}))
    log = folder / f"worker-{task}.log"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
    env.pop("TF_CONFIG", None)
    with open(log, "w") as err:
        popen = subprocess.Popen([sys.executable, "-m", "tfcompare.run.distributed.worker", str(path)],
                                 stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env,
                                 start_new_session=True, preexec_fn=die_with_parent)
    return _Proc(task, popen, log)


def _stop(procs: list[_Proc]) -> None:
    for p in procs:
        if p.popen.poll() is None:
            try:
                os.killpg(p.popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _wait(procs: list[_Proc], out: Path, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        check_interrupt()
        codes = [p.popen.poll() for p in procs]
        failed = [(p, c) for p, c in zip(procs, codes) if c not in (None, 0)]
        if failed:
            p, code = failed[0]
            raise DistError(f"worker {p.task} exited with {code}: {p.tail() or 'no output'}")
        if all(c == 0 for c in codes):
            if not out.exists():
                raise DistError("the workers ended without writing a result")
            return json.loads(out.read_text())
        if time.monotonic() > deadline:
            hung = [p.task for p, c in zip(procs, codes) if c is None]
            raise DistError(f"timed out after {timeout_s:g} s waiting for worker(s) {hung}: "
                            f"{procs[hung[0]].tail() or 'no output'}")
        time.sleep(0.05)


def run_distributed(mode: str, spec: dict, workers: int, folder: Path, timeout_s: float, threads: int) -> dict:
    """Run `mode` with `workers` replicas; the chief's result (values, times), or DistError naming the worker."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "result.json"
    for attempt in range(_TRIES):
        procs: list[_Proc] = []
        t0 = time.perf_counter()
        try:
            if mode == "tf2-mirrored":
                full = {**spec, "mode": mode, "workers": workers, "out": str(out), "threads": threads}
                procs.append(_start(full, folder, 0, threads))
            else:
                addresses = [f"{HOST}:{p}" for p in free_ports(workers)]
                full = {**spec, "mode": mode, "workers": workers, "out": str(out), "addresses": addresses,
                        "threads": max(1, threads // workers)}
                procs += [_start(full, folder, i, threads) for i in range(workers)]
            result = _wait(procs, out, timeout_s)
            result["wall_s"] = time.perf_counter() - t0
            return result
        except DistError as exc:
            if attempt + 1 < _TRIES and any(e in str(exc) for e in _PORT_ERRORS):
                continue  # a port was taken between choosing and binding: new ports
            raise
        finally:
            _stop(procs)
    raise DistError(f"could not bind ports on {HOST} after {_TRIES} tries")
