"""What `tfcompare run` writes for TensorBoard, read back with TensorBoard's own event reader."""

import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

from tfcompare.report import tensorboard as summaries
from tfcompare.core.modes import MODES

from conftest import FULL_CASES


_ACC = {}


def _load(full_run, mode):
    """One mode's TensorBoard run, read once: every case's tags are in it."""
    if mode not in _ACC:
        _ACC[mode] = event_accumulator.EventAccumulator(
            str(summaries.mode_dir(full_run.run_dir, mode)), size_guidance={event_accumulator.TENSORS: 0})
        _ACC[mode].Reload()
    return _ACC[mode]


def _value(acc, tag, index=0):
    return float(tf.make_ndarray(acc.Tensors(tag)[index].tensor_proto))


@pytest.mark.parametrize("case,mode", [(c, m) for m in MODES for c in FULL_CASES
                                       if m not in FULL_CASES[c].unsupported_modes])
def test_same_scalar_tags_and_values_in_every_mode(full_run, case, mode):
    row = full_run.find(case, mode)
    acc = _load(full_run, mode)
    tags = set(acc.Tags()["tensors"])
    expected = {summaries.case_tag(case, summaries.STEP_TAG)} | {
        summaries.case_tag(case, t) for t, f in summaries.SCALAR_TAGS.items() if getattr(row, f) is not None}
    assert expected <= tags
    steps = acc.Tensors(summaries.case_tag(case, summaries.STEP_TAG))
    assert [e.step for e in steps] == list(range(row.samples))
    assert [float(tf.make_ndarray(e.tensor_proto)) for e in steps] == pytest.approx(row.step_times_s, rel=1e-6)
    assert _value(acc, f"{case}/timing/step_median_s") == pytest.approx(row.step_median_s, rel=1e-6)
    assert _value(acc, f"{case}/tracing/traces") == row.traces
    if row.speedup_ci:  # the speed's 95% interval beside it
        assert [_value(acc, f"{case}/timing/speedup_ci_low"), _value(acc, f"{case}/timing/speedup_ci_high")] == \
            pytest.approx(row.speedup_ci, rel=1e-6)


def _graph(full_run, mode, tag):
    from tensorflow.core.protobuf import config_pb2

    raw = tf.make_ndarray(_load(full_run, mode).Tensors(tag)[0].tensor_proto).item()
    return config_pb2.RunMetadata.FromString(raw).function_graphs[0].pre_optimization_graph


@pytest.mark.parametrize("mode,ops", [
    ("tf1-graph", {"Placeholder", "MatMul", "ResourceApplyMomentum"}),
    ("tf2-function", {"MatMul", "Relu", "AssignVariableOp"}),
    ("tf2-xla", {"MatMul", "Relu"}),
    ("tf2-loop", {"While"}),
])
def test_graph_modes_log_their_graph(full_run, mode, ops):
    graph = _graph(full_run, mode, "mlp")  # each case's graph under its own tag in the mode's run
    present = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
    assert ops <= present


def test_eager_logs_no_graph(full_run):
    assert not {"mlp", "mlp/optimized"} & set(_load(full_run, "tf2-eager").Tags()["tensors"])
    assert "mlp/optimized" in _load(full_run, "tf2-function").Tags()["tensors"]


def test_xla_logs_hlo_text(full_run):
    acc = _load(full_run, "tf2-xla")
    text = tf.make_ndarray(acc.Tensors("elementwise/xla/optimized_hlo")[0].tensor_proto).item().decode()
    assert "HloModule" in text and "fusion" in text
