"""Distance to the limit: FLOPs counted from a traced step equal the hand count; the GEMM rate is measured,
cached, and a failed calibration is stated while the run goes on."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.core.graphs import step_flops
from tfcompare.core.peak import gemm_peak
from tfcompare.registry import CASES


def _cost(name):
    case = CASES[name]
    model = case.make_model(case.init_weights(np.random.default_rng(0)))
    batch = case.make_batch(np.random.default_rng(1), case.default_batch_size)
    graph = tf.function(model.train_step).get_concrete_function({k: tf.constant(v) for k, v in batch.items()}).graph
    return step_flops(graph)


def test_matmul_and_mlp_flops_equal_the_hand_count():
    # matmul: x[256,1024] @ W[1024,1024] forward, and dW = x^T @ dY; no gradient flows to the input
    assert _cost("matmul")["dense_flops"] == 2 * (2 * 256 * 1024 * 1024)
    # mlp 64->128->128->10 at batch 64: 3 forward products, 3 weight gradients, 2 activation gradients
    forward = 2 * 64 * (64 * 128 + 128 * 128 + 128 * 10)
    assert _cost("mlp")["dense_flops"] == forward + forward + 2 * 64 * (128 * 128 + 128 * 10)
    matmul = _cost("matmul")
    assert matmul["flops"] > matmul["dense_flops"] and not matmul["has_loops"] and matmul["unknown_shapes"] == 0


def test_loops_make_the_count_a_lower_bound():
    assert _cost("rnn")["has_loops"] is True and _cost("elementwise")["dense_flops"] == 0


def test_gemm_peak_keeps_the_best_rate_and_a_failure_is_stated(tmp_path, monkeypatch):
    cache = tmp_path / "peak.json"
    monkeypatch.setattr("tfcompare.core.peak.CACHE", cache)
    first = gemm_peak("CPU:0", 2)
    assert first.gflops and first.gflops == first.now_gflops > 0 and not first.cached
    assert list(json.loads(cache.read_text()).values()) == [first.gflops]
    key = next(iter(json.loads(cache.read_text())))
    # a rate cached while the machine was busy (1 GFLOP/s) is lower than today's: today's replaces it
    cache.write_text(json.dumps({key: 1.0}))
    faster = gemm_peak("CPU:0", 2)
    assert faster.gflops == faster.now_gflops > 1.0 and not faster.cached and faster.replaced_gflops == 1.0
    assert json.loads(cache.read_text()) == {key: faster.gflops}
    # a cached best above what this run measures stays the limit; the run's own figure is kept beside it
    cache.write_text(json.dumps({key: 1e9}))
    slower = gemm_peak("CPU:0", 2)
    assert slower.gflops == 1e9 and slower.cached and 0 < slower.now_gflops < 1e9
    assert json.loads(cache.read_text()) == {key: 1e9}
    broken = gemm_peak("NOT_A_DEVICE:0", 2)
    assert broken.gflops is None and broken.error.startswith("GEMM calibration failed")


def test_run_rows_carry_the_limit(full_run):
    peak = full_run.environment["gemm_peak_gflops"]
    assert peak and full_run.environment["gemm_method"].startswith("median of 7 blocks")
    row = full_run.find("matmul", "tf1-graph")
    assert row.step_flops == _cost("matmul")["flops"]
    assert row.gflops_per_s == pytest.approx(row.step_flops / row.step_median_s / 1e9)
    assert row.fraction_of_peak == pytest.approx(row.gflops_per_s / peak)
    eager = full_run.find("elementwise", "tf2-eager")
    assert eager.us_per_op == pytest.approx(eager.step_median_s / eager.step_ops * 1e6)


def test_machine_load_is_the_share_other_processes_took():
    from tfcompare.core.environment import load_snapshot, machine_load

    start = {"loadavg": [0.2, 0.1, 0.1], "busy_cpu_s": 100.0, "own_cpu_s": 5.0, "time": 1000.0}
    # 10 s on 2 CPUs = 20 CPU seconds; the machine was busy 12 of them, 7 ours: others took 5 / 20
    quiet = machine_load(start, {"loadavg": [1.1, 0.5, 0.2], "busy_cpu_s": 112.0, "own_cpu_s": 12.0,
                                 "time": 1010.0}, 2)
    assert quiet["others_cpu_share"] == pytest.approx(0.25) and not quiet["busy"] and quiet["warning"] is None
    busy = machine_load(start, {"loadavg": [3.9, 2.0, 1.0], "busy_cpu_s": 118.0, "own_cpu_s": 12.0,
                                "time": 1010.0}, 2)
    assert busy["others_cpu_share"] == pytest.approx(0.55) and busy["busy"]
    assert "load 0.2 at the start and 3.9 at the end on 2 CPUs, other processes took 55%" in busy["warning"]
    # where /proc/stat cannot tell, a load at the start over half the CPUs is busy; where it can, the share decides
    blind = dict(start, busy_cpu_s=None)
    assert machine_load(dict(blind, loadavg=[1.5, 1, 1]), dict(blind, time=1010.0), 2)["busy"]
    assert not machine_load(dict(start, loadavg=[1.5, 1, 1]), dict(start, time=1010.0), 2)["busy"]  # others 0%
    now = load_snapshot()
    assert len(now["loadavg"]) == 3 and now["busy_cpu_s"] > 0 and now["own_cpu_s"] > 0
