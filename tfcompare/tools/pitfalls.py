"""Small self-checking demonstrations of what tracing does to ordinary Python, measured in the run.

Each demonstration builds fresh `tf.function`s, counts what happened, and states what the counts
show. `holds` says whether TensorFlow behaved as the text describes on this installation; nothing
here is asserted in advance.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import sys
import tempfile
import traceback
from contextlib import redirect_stdout
from pathlib import Path
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core.graphs import control_flow_ops
from tfcompare.core.trace_log import QuietRetraceWarning
from tfcompare.report.format import counts

__all__ = ["Pitfall", "PITFALLS", "run_pitfalls", "pitfalls_text", "LEGEND"]

CALLS = 5
_HERE = "/".join(Path(__file__).parts[-3:])  # tfcompare/tools/pitfalls.py: where the demonstrations' lines are

LEGEND = ("[shown] = TensorFlow on this installation did what the line says (the counts were measured in this run "
          "and checked); [NOT as described here] = it did not; [error: ...] = the demonstration itself failed.")


@dataclasses.dataclass
class Pitfall:
    name: str
    shows: str
    measured: dict
    holds: bool
    error: str | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def text(self) -> str:
        verdict = "error: " + self.error if self.error else ("shown" if self.holds else "NOT as described here")
        return f"{self.name}: {self.shows} [{verdict}]"


def _print_vs_tf_print() -> Pitfall:
    python_out = io.StringIO()
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)

    @tf.function
    def step(x):
        print("python print")  # runs while tracing only
        tf.print("tf.print", output_stream=f"file://{path}")  # an op in the graph: runs every call
        return x + 1

    try:
        with redirect_stdout(python_out):
            for _ in range(CALLS):
                step(tf.constant(1.0))
        with open(path) as f:
            tf_prints = sum(1 for line in f if line.strip())
    finally:
        os.unlink(path)
    python_prints = python_out.getvalue().count("python print")
    return Pitfall("print", f"over {CALLS} calls, Python print ran {python_prints}x (once per trace) and tf.print "
                   f"{tf_prints}x (every call)",
                   {"calls": CALLS, "python_print": python_prints, "tf_print": tf_prints,
                    "traces": step.experimental_get_tracing_count()},
                   holds=python_prints == 1 and tf_prints == CALLS)


_SCALE = 1.0  # read by the function below at trace time


def _python_branch_and_global() -> Pitfall:
    global _SCALE

    @tf.function
    def dropout_like(x, training):
        return x * 0.5 if training else x

    for flag in (True, False, True, False):
        dropout_like(tf.constant(2.0), flag)
    flag_traces = dropout_like.experimental_get_tracing_count()

    @tf.function
    def scaled(x):
        return x * _SCALE

    _SCALE = 1.0
    before = float(scaled(tf.constant(3.0)))
    _SCALE = 2.0  # the graph captured 1.0; no retrace follows
    after = float(scaled(tf.constant(3.0)))
    _SCALE = 1.0
    return Pitfall("python-branch-and-global",
                   f"a branch on a Python bool gave {flag_traces} graphs (one per value); a global read at trace "
                   f"time stayed frozen: after changing it from 1.0 to 2.0 the function still returned {after} "
                   f"(eager would give 6.0), with {scaled.experimental_get_tracing_count()} trace",
                   {"flag_values": 2, "flag_traces": flag_traces, "global_result_before": before,
                    "global_result_after": after, "eager_result_after": 6.0,
                    "global_traces": scaled.experimental_get_tracing_count()},
                   holds=flag_traces == 2 and after == before == 3.0)


_PLUMBING = ("Const", "Identity", "NoOp")  # in every branch function: not what the branch computes


def _tensor_branch() -> Pitfall:
    """The counterpart of the Python bool: an `if` on a tensor is not frozen at trace time. AutoGraph turns it into
    one (Stateless)If op that holds both branches as functions, so one trace serves inputs of either sign."""
    @tf.function
    def branch(x):
        if x > 0:  # a tensor condition: AutoGraph makes it tf.cond
            y = x * 2.0
        else:
            y = x - 1.0
        return y

    inputs = (3.0, -3.0)
    results = {repr(v): float(branch(tf.constant(v))) for v in inputs}
    eager = {repr(v): float(branch.python_function(tf.constant(v))) for v in inputs}
    traces = branch.experimental_get_tracing_count()
    graph = branch.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()  # the trace above, not a new one
    library = {f.signature.name: f for f in graph.library.function}
    branches = {}
    for node in graph.node:
        if node.op in ("If", "StatelessIf"):
            for side in ("then_branch", "else_branch"):
                body = library.get(node.attr[side].func.name)
                branches[side] = sorted({n.op for n in body.node_def} - set(_PLUMBING)) if body else []
    cond_ops = control_flow_ops(graph)
    shown = ", ".join(f"{side.split('_')[0]}: {'+'.join(ops) or 'nothing'}" for side, ops in branches.items())
    return Pitfall("tensor-branch",
                   f"a branch on a tensor (if x > 0) gave {traces} trace for inputs of both signs: the graph holds "
                   f"{counts(cond_ops)} with both branches ({shown}), and returned {results['3.0']} for 3.0 and "
                   f"{results['-3.0']} for -3.0 (eager: {eager['3.0']} and {eager['-3.0']})",
                   {"inputs": list(inputs), "traces": traces, "results": results, "eager_results": eager,
                    "control_flow_ops": cond_ops, "branch_ops": branches},
                   holds=(traces == 1 and results == eager == {"3.0": 6.0, "-3.0": -4.0}
                          and branches.get("then_branch") == ["Mul"] and branches.get("else_branch") == ["Sub"]))


def _numpy_random() -> Pitfall:
    np.random.seed(0)

    @tf.function
    def noisy(x):
        return x + np.random.normal()  # evaluated once, at trace time

    graph_values = {float(noisy(tf.constant(0.0))) for _ in range(CALLS)}
    eager_values = {float(tf.constant(0.0) + np.random.normal()) for _ in range(CALLS)}
    return Pitfall("np-random", f"np.random inside tf.function gave {len(graph_values)} distinct value over {CALLS} "
                   f"calls (a constant fixed at trace time); eagerly {len(eager_values)}",
                   {"calls": CALLS, "distinct_in_function": len(graph_values), "distinct_eager": len(eager_values)},
                   holds=len(graph_values) == 1 and len(eager_values) == CALLS)


def _python_numbers() -> Pitfall:
    @tf.function
    def add(x, n):
        return x + n

    x = tf.constant(10)
    for n in range(1, CALLS + 1):
        add(x, n)
    per_value = add.experimental_get_tracing_count()

    @tf.function
    def identity(n):
        return tf.convert_to_tensor(n)  # int -> int32, float -> float32, if each got its own trace

    results = {repr(v): identity(v) for v in (1, 1.0, True)}
    shared = identity.experimental_get_tracing_count()
    dtypes = {k: r.dtype.name for k, r in results.items()}
    return Pitfall("python-numbers", f"{CALLS} different Python ints gave {per_value} traces; 1, 1.0 and True gave "
                   f"{shared} trace: the float call returned {dtypes['1.0']} from the graph traced for the int",
                   {"distinct_ints": CALLS, "traces_for_ints": per_value, "traces_for_1_1.0_True": shared,
                    "result_dtypes": dtypes},
                   holds=per_value == CALLS and shared == 1 and dtypes["1.0"] == "int32")


def _where(exc: BaseException) -> str:
    """The user's line the error points at: TF's "in user code" frames inside a traced function, else
    the innermost frame of this module in the traceback."""
    inside = re.findall(r'File "' + re.escape(__file__) + r'", line (\d+), in (\w+)', str(exc))
    if inside:
        line, fn = inside[-1]
        return f"{_HERE} line {line} inside {fn}() (from TensorFlow's 'in user code' message)"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == __file__]
    return f"{_HERE} line {frames[-1].lineno}: {frames[-1].line}" if frames else "(no frame in the user's code)"


def _error_text(exc: BaseException, limit: int = 160) -> str:
    """`ValueError: as_list() is not defined...`: the error's name once, though Keras's message may repeat it."""
    last = str(exc).strip().splitlines()[-1].strip() if str(exc).strip() else ""
    name = type(exc).__name__
    return (last if last.startswith(f"{name}: ") else f"{name}: {last}")[:limit]


def _shape_errors() -> Pitfall:
    phases = {}
    a, b = np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)
    with tf.compat.v1.Graph().as_default():
        try:
            x = tf.compat.v1.placeholder(tf.float32, [None, 3])
            tf.compat.v1.matmul(x, b)  # static shapes disagree: caught while building, before any data
            phases["tf1-graph"] = "no error"
        except (ValueError, tf.errors.InvalidArgumentError) as exc:
            phases["tf1-graph"] = f"graph construction (no Session, no data): {_where(exc)}"
    try:
        tf.matmul(tf.constant(a), tf.constant(b))  # eager: raised when the op runs on data
        phases["tf2-eager"] = "no error"
    except (ValueError, tf.errors.InvalidArgumentError) as exc:
        phases["tf2-eager"] = f"run time, on the first data: {_where(exc)}"

    @tf.function
    def product(p, q):
        return tf.matmul(p, q)

    try:
        product(tf.constant(a), tf.constant(b))
        phases["tf2-function"] = "no error"
    except (ValueError, tf.errors.InvalidArgumentError) as exc:
        phases["tf2-function"] = f"trace time, first call: {_where(exc)}"
    return Pitfall("shape-error", "; ".join(f"{k} raised at {v}" for k, v in phases.items()), phases,
                   holds=all(v != "no error" for v in phases.values()))


def _python_op_shape() -> Pitfall:
    """A Python op (`tf.py_function`) has no shape function: inside a graph its output shape is unknown, so a
    layer that needs its input's last dimension fails at trace time; `tf.ensure_shape` restores the shape."""
    import keras

    seen = {}

    def double(t):
        return t * 2.0

    plain_layer, repaired_layer = keras.layers.Dense(4), keras.layers.Dense(4)

    @tf.function
    def plain(x):
        y = tf.py_function(double, [x], tf.float32)
        seen["plain"] = str(y.shape)
        return plain_layer(y)

    @tf.function
    def repaired(x):
        y = tf.ensure_shape(tf.py_function(double, [x], tf.float32), x.shape)
        seen["repaired"] = str(y.shape)
        return repaired_layer(y)

    x = tf.ones([2, 3])
    try:
        plain(x)
        failure = None
    except Exception as exc:  # raised while tracing: the layer cannot be built on an unknown shape
        failure = _error_text(exc)
    out = repaired(x)
    measured = {"shape_inside_graph": seen.get("plain"), "trace_time_error": failure,
                "shape_after_ensure_shape": seen.get("repaired"), "repaired_output_shape": out.shape.as_list()}
    return Pitfall("python-op-shape",
                   f"a tf.py_function output inside tf.function has shape {seen.get('plain')}, so a Dense layer "
                   f"after it failed at trace time ({failure}); tf.ensure_shape gave it {seen.get('repaired')} "
                   f"and the layer built (output {out.shape.as_list()})",
                   measured, holds=failure is not None and seen.get("repaired") == "(2, 3)")


PITFALLS: dict[str, Callable[[], Pitfall]] = {
    "print": _print_vs_tf_print,
    "python-branch-and-global": _python_branch_and_global,
    "tensor-branch": _tensor_branch,
    "np-random": _numpy_random,
    "python-numbers": _python_numbers,
    "shape-error": _shape_errors,
    "python-op-shape": _python_op_shape,
}


def pitfalls_text(found: list[Pitfall]) -> str:
    """The terminal view: one line per demonstration, then what its bracket means."""
    return "\n".join([p.text() for p in found] + ["", LEGEND])


def run_pitfalls(names=None) -> list[Pitfall]:
    """Run the named demonstrations (all by default); one that raises is reported, the others still run."""
    out = []
    with QuietRetraceWarning():
        for name in names or PITFALLS:
            try:
                out.append(PITFALLS[name]())
            except Exception as exc:
                out.append(Pitfall(name, "", {}, False, f"{type(exc).__name__}: {exc}"))
    sys.stdout.flush()
    return out
