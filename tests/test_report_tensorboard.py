"""What `tfcompare run` writes for TensorBoard, read back with TensorBoard's own event reader."""

import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

from tfcompare.report import tensorboard as summaries
from tfcompare.core.modes import MODES

from conftest import FULL_CASES


def _load(full_run, case, mode):
    acc = event_accumulator.EventAccumulator(
        str(summaries.mode_dir(full_run.run_dir, case, mode)),
        size_guidance={event_accumulator.TENSORS: 0, event_accumulator.GRAPH: 1})
    acc.Reload()
    return acc


def _value(acc, tag, index=0):
    return float(tf.make_ndarray(acc.Tensors(tag)[index].tensor_proto))


@pytest.mark.parametrize("case,mode", [(c, m) for m in MODES for c in FULL_CASES
                                       if m not in FULL_CASES[c].unsupported_modes])
def test_same_scalar_tags_and_values_in_every_mode(full_run, case, mode):
    row = full_run.find(case, mode)
    acc = _load(full_run, case, mode)
    tags = set(acc.Tags()["tensors"])
    expected = {summaries.STEP_TAG} | {t for t, f in summaries.SCALAR_TAGS.items() if getattr(row, f) is not None}
    assert expected <= tags
    steps = acc.Tensors(summaries.STEP_TAG)
    assert [e.step for e in steps] == list(range(row.samples))
    assert [float(tf.make_ndarray(e.tensor_proto)) for e in steps] == pytest.approx(row.step_times_s, rel=1e-6)
    assert _value(acc, "timing/step_median_s") == pytest.approx(row.step_median_s, rel=1e-6)
    assert _value(acc, "tracing/traces") == row.traces


@pytest.mark.parametrize("mode,ops", [
    ("tf1-graph", {"Placeholder", "MatMul", "ResourceApplyMomentum"}),
    ("tf2-function", {"MatMul", "Relu", "AssignVariableOp"}),
    ("tf2-xla", {"MatMul", "Relu"}),
    ("tf2-loop", {"While"}),
])
def test_graph_modes_log_their_graph(full_run, mode, ops):
    acc = _load(full_run, "mlp", mode)
    graph = acc.Graph()
    present = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
    assert ops <= present


def test_eager_logs_no_graph(full_run):
    acc = _load(full_run, "mlp", "tf2-eager")
    assert acc.Tags()["graph"] is False


def test_xla_logs_hlo_text(full_run):
    acc = _load(full_run, "elementwise", "tf2-xla")
    text = tf.make_ndarray(acc.Tensors("xla/optimized_hlo")[0].tensor_proto).item().decode()
    assert "HloModule" in text and "fusion" in text
