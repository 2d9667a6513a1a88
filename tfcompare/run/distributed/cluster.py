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

import numpy as np

from tfcompare.core.children import die_with_parent
from tfcompare.core.watchdog import check_interrupt

__all__ = ["DIST_MODES", "STRATEGIES", "DistError", "supported", "run_distributed", "free_ports"]

HOST = "127.0.0.1"
DIST_MODES = {
    "tf1-ps": "SyncReplicasOptimizer: TF1 between-graph replication, 1 parameter server and N worker processes",
    "tf2-mirrored": "MirroredStrategy over N logical CPU devices in one process",
    "tf2-multiworker": "MultiWorkerMirroredStrategy over N worker processes (TF_CONFIG, gRPC on 127.0.0.1)",
}
STRATEGIES = {"tf1-ps": "SyncReplicasOptimizer", "tf2-mirrored": "MirroredStrategy",
              "tf2-multiworker": "MultiWorkerMirroredStrategy"}
_PORT_ERRORS = ("Address already in use", "Could not start gRPC server", "Failed to add port")
_TRIES = 3


class DistError(RuntimeError):
    """A distributed mode that failed: which process, and the tail of its stderr."""


def supported(mode: str, model) -> str | None:
    """Why the case cannot run in `mode` (None when it can). TF1: any builder that hands `graph_parts` its
    optimizer. TF2: the step is split by the harness, so the model must expose its loss and a TF1-exact or
    `tf.Module` optimizer with `apply(grads, variables)`."""
    if mode == "tf1-ps" or model is None:
        return None
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
    task: int | str
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
    # TMPDIR: AutoGraph's generated files go with the folder, which is removed after the mode
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1", TMPDIR=str(folder))
    env.pop("TF_CONFIG", None)
    with open(log, "w") as err:
        popen = subprocess.Popen([sys.executable, "-m", "tfcompare.worker", str(path)],
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


def _wait(procs: list[_Proc], out: Path, timeout_s: float) -> list[dict]:
    """Every worker's result; a parameter server serves until it is stopped, so only its failure is waited for."""
    deadline = time.monotonic() + timeout_s
    workers = [p for p in procs if p.task != "ps"]
    while True:
        check_interrupt()
        codes = {p.task: p.popen.poll() for p in procs}
        failed = [p for p in procs if codes[p.task] not in (None, 0)]
        if failed:
            p = failed[0]
            name = "the parameter server" if p.task == "ps" else f"worker {p.task}"
            raise DistError(f"{name} exited with {codes[p.task]}: {p.tail() or 'no output'}")
        if all(codes[p.task] == 0 for p in workers):
            files = [Path(f"{out}-{p.task}.json") for p in workers]
            missing = [p.task for p, f in zip(workers, files) if not f.exists()]
            if missing:
                raise DistError(f"worker(s) {missing} ended without writing a result")
            return [json.loads(f.read_text()) for f in files]
        if time.monotonic() > deadline:
            hung = [p for p in workers if codes[p.task] is None]
            raise DistError(f"timed out after {timeout_s:g} s waiting for worker(s) {[p.task for p in hung]}: "
                            f"{hung[0].tail() or 'no output'}")
        time.sleep(0.05)


def _merge(results: list[dict]) -> dict:
    """One result from the workers': the chief's times; TF1's per-worker shards put together (the forward pass
    concatenated in task order, gradients and losses averaged over the equal shards, weights from the ps)."""
    chief = dict(results[0])
    if len(results) == 1 or chief["mode"] != "tf1-ps":
        return chief
    values = {}
    for key in chief["values"]:
        parts = [np.asarray(r["values"][key]) for r in results]
        if key == "forward":
            values[key] = np.concatenate(parts).tolist()
        elif key.startswith(("gradients[", "losses")):
            values[key] = np.mean(parts, axis=0).tolist()
        else:
            values[key] = parts[0].tolist()
    chief["values"] = values
    return chief


def run_distributed(mode: str, spec: dict, workers: int, folder: Path, timeout_s: float, threads: int) -> dict:
    """Run `mode` with `workers` replicas; the chief's result (values, times), or DistError naming the worker."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "result"
    for attempt in range(_TRIES):
        procs: list[_Proc] = []
        t0 = time.perf_counter()
        try:
            full = {**spec, "mode": mode, "workers": workers, "out": str(out), "threads": max(1, threads // workers)}
            if mode == "tf2-mirrored":
                procs.append(_start({**full, "threads": threads}, folder, 0, threads))
            elif mode == "tf2-multiworker":
                full["addresses"] = [f"{HOST}:{p}" for p in free_ports(workers)]
                procs += [_start(full, folder, i, threads) for i in range(workers)]
            else:
                ports = free_ports(workers + 1)
                full["cluster"] = {"ps": [f"{HOST}:{ports[0]}"], "worker": [f"{HOST}:{p}" for p in ports[1:]]}
                procs += [_start(full, folder, "ps", threads)] + [_start(full, folder, i, threads)
                                                                   for i in range(workers)]
            result = _merge(_wait(procs, out, timeout_s))
            result["wall_s"] = time.perf_counter() - t0
            return result
        except DistError as exc:
            if not any(e in str(exc) for e in _PORT_ERRORS):
                raise
            if attempt + 1 < _TRIES:
                continue  # a port was taken between choosing and binding: new ports
            raise DistError(f"a port chosen free on {HOST} was taken before the worker could bind it, "
                            f"{_TRIES} times: {exc}") from None
        finally:
            _stop(procs)
    raise AssertionError("unreachable")  # every try returns or raises
