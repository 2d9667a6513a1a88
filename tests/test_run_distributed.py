"""Distributed modes on real worker processes and real gRPC servers on 127.0.0.1: the same numbers as tf1-graph
on the whole batch, and no process left behind whatever happens to a worker or to the run."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.cases import load_cases_file
from tfcompare.registry import CASES
from tfcompare.run import harness

from conftest import QUICK_TEST

DATA = Path(__file__).parent / "data"
WORKER = "tfcompare.worker"


_TAG = "TFCOMPARE_TEST_DISTRIBUTED"


@pytest.fixture(autouse=True)
def _tagged(tmp_path, monkeypatch):
    """Every worker this test starts inherits a mark of its own in its environment (even one orphaned to init):
    `_workers` counts those, not another pytest-xdist worker's tests' workers."""
    monkeypatch.setenv(_TAG, str(tmp_path))


def _workers() -> list[str]:
    mark = f"{_TAG}={os.environ[_TAG]}".encode()
    found = []
    for pid in subprocess.run(["pgrep", "-f", WORKER], capture_output=True, text=True).stdout.split():
        try:
            if mark in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                found.append(pid)
        except OSError:  # ended meanwhile
            continue
    return found


def test_every_distributed_mode_agrees_with_tf1_graph_on_the_mlp(tmp_path):
    """One case (the MLP: two layers, a bias each): every worker process is a TensorFlow import, 6 of them."""
    config = harness.RunConfig(cases=("mlp",), modes=("tf1-graph",), distributed=2, **QUICK_TEST)
    result = harness.run(config, CASES, tmp_path, "dist")
    rows = {(r.case, r.mode): r for r in result.results}
    for case in ("mlp",):
        for mode, strategy, traces in (("tf1-ps", "SyncReplicasOptimizer", 0), ("tf2-mirrored", "MirroredStrategy", 1),
                                       ("tf2-multiworker", "MultiWorkerMirroredStrategy", 1)):
            row = rows[(case, mode)]
            assert row.status == "ok", (mode, row.error)
            assert (row.workers, row.strategy, row.traces) == (2, strategy, traces)
            assert row.tolerance == "rtol=0.0001 atol=1e-05 (all-reduce adds the replicas' gradients in another order)"
            names = {c["name"] for c in row.equivalence["checks"]}
            assert {"forward", "losses"} <= names and any(n.startswith("gradients[") for n in names)
            assert row.samples == QUICK_TEST["repeats"] and row.step_median_s > 0 and row.first_call_s > 0
    doc = json.loads((tmp_path / "dist" / "results.json").read_text())
    assert {r["mode"] for r in doc["results"]} == {"tf1-graph", "tf1-ps", "tf2-mirrored", "tf2-multiworker"}
    assert _workers() == []


def test_a_killed_worker_is_an_error_row_and_leaves_nothing(tmp_path):
    cases = {c.name: c for c in load_cases_file(DATA / "dist_cases.py")}
    config = harness.RunConfig(cases=("worker-dies",), modes=("tf1-graph",), distributed=2, mode_timeout_s=60,
                               **QUICK_TEST)
    t0 = time.monotonic()
    rows = {(r.case, r.mode): r for r in harness.run(config, cases, tmp_path, "bad").results}
    died = rows[("worker-dies", "tf2-multiworker")]
    assert died.status == "error" and died.error.startswith("worker 1 exited with -9")
    assert rows[("worker-dies", "tf1-graph")].status == "ok"  # the rest of the case still ran
    assert time.monotonic() - t0 < 60  # found when the worker died, not at the limit
    assert _workers() == []


def test_ctrl_c_during_a_distributed_run_leaves_no_worker(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "tfcompare", "run", "--cases-file", str(DATA / "dist_cases.py"),
                             "--case", "worker-hangs", "--mode", "tf1-graph", "--distributed", "2", "--quick",
                             "--logdir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    for line in proc.stderr:
        if "tf2-multiworker with 2 workers" in line:
            break
    deadline = time.monotonic() + 60
    while len(_workers()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(_workers()) == 2
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert _workers() == []


def test_zero_or_negative_workers_is_a_usage_error():
    for bad in ("0", "-2", "9"):
        result = CliRunner().invoke(cli, ["run", "--case", "linear", "--distributed", bad])
        assert result.exit_code == 2 and "--distributed" in result.output and "Traceback" not in result.output


def test_a_port_taken_before_the_worker_binds_is_retried_then_one_clear_error(tmp_path, monkeypatch):
    import socket

    from tfcompare.run.distributed import cluster

    busy = socket.socket()
    busy.bind((cluster.HOST, 0))
    busy.listen(1)
    tries = []

    def taken(n):  # every try is handed the port another program holds
        tries.append(n)
        return [busy.getsockname()[1]] * n

    monkeypatch.setattr(cluster, "free_ports", taken)
    spec = {"case": "linear", "cases_file": None, "seed": 0, "batch_size": 8, "steps": 1, "repeats": 1}
    try:
        cluster.run_distributed("tf2-multiworker", spec, 1, tmp_path / "w", 60, 1)
        raise AssertionError("a taken port must not run")
    except cluster.DistError as exc:
        assert str(exc).startswith("a port chosen free on 127.0.0.1 was taken before the worker could bind it, 3 times")
    finally:
        busy.close()
    assert tries == [1, 1, 1] and _workers() == []
