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


def test_gemm_peak_is_cached_and_a_failure_is_stated(tmp_path, monkeypatch):
    cache = tmp_path / "peak.json"
    monkeypatch.setattr("tfcompare.core.peak.CACHE", cache)
    first = gemm_peak("CPU:0", 2)
    assert first.gflops and first.gflops > 0 and not first.cached
    second = gemm_peak("CPU:0", 2)
    assert second.cached and second.gflops == first.gflops
    assert list(json.loads(cache.read_text()).values()) == [first.gflops]
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
