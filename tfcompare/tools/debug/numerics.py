"""The first non-finite value in each mode: the op, its type, the step and the user's line that made it.

Each mode first runs its steps unchecked; only a mode that goes non-finite is run again with checking on, since
checking changes the graph (a check on every output keeps Grappler from rewriting the expression, so a checked
graph can fail where the real one does not). TF2: `tf.debugging.enable_check_numerics` (the message names the op,
its type and, for graphs, the stack of the op's creation). XLA compiles the step as one cluster with no per-op
check (`DebugNumericSummaryV2` has no XLA kernel), so an XLA mode is located with the same step run eagerly, and
says so. TF1: every floating-point output of the step fetched at the failing step; the first op (in graph order)
with a non-finite output and only finite inputs is where it starts.
"""

from __future__ import annotations

import os
import re
import traceback
from typing import Callable

import numpy as np
import tensorflow as tf

from tfcompare.core.errors import describe
from tfcompare.core.graphs import ancestors
from tfcompare.tools.debug.report import NonFinite

__all__ = ["first_non_finite", "non_finite_values", "locate_tf2", "locate_tf1"]

_DETECTED = re.compile(r'Detected Infinity or NaN in output (\d+) of (eagerly-executing|graph) op "([^"]+)"')
_HAD = re.compile(r"Tensor had (-?Inf|NaN) values")
_NODE = re.compile(r"\{\{node ([^}]+?)/CheckNumerics\w*\}\}")
_FRAME = re.compile(r"^\s*\+ (?P<file>\S.*?) \(L(?P<line>\d+)\) (?P<fn>\S+)\s*$")
_LIBRARY = (f"{os.sep}tensorflow{os.sep}", f"{os.sep}keras{os.sep}", f"{os.sep}tfcompare{os.sep}",
            f"{os.sep}numpy{os.sep}", "site-packages", "...")


def _user(file: str) -> bool:
    return not any(p in file for p in _LIBRARY)


def first_non_finite(losses: list[float], weights: list[dict]) -> int | None:
    """The first step (1-based) whose loss or weights are not all finite."""
    for i, (loss, w) in enumerate(zip(losses, weights)):
        if not np.isfinite(loss) or not all(np.all(np.isfinite(v)) for v in w.values()):
            return i + 1
    return None


def _source_from_message(text: str) -> str | None:
    lines = text.splitlines()
    found = None
    for i, line in enumerate(lines):
        m = _FRAME.match(line)
        if m and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("->") and _user(m.group("file")):
            found = f"{m.group('file')}:{m.group('line')} ({m.group('fn')})"
    return found


def _source_from_traceback(exc: BaseException) -> str | None:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _user(f.filename)]
    return f"{frames[-1].filename}:{frames[-1].lineno} ({frames[-1].name})" if frames else None


def locate_tf2(mode: str, run_steps: Callable[[], None], steps: int, how: str) -> NonFinite:
    """Run the steps (a fresh runner built inside `run_steps`) with TF2's numeric checking on."""
    tf.debugging.enable_check_numerics()
    step = {"n": 0}
    try:
        run_steps(step)
    except Exception as exc:  # the check raises InvalidArgumentError at the first non-finite output
        text = str(exc)
        m = _DETECTED.search(text)
        if not m:
            return NonFinite(mode, False, steps, step["n"] or None, how=f"{how}; the check raised {describe(exc)}")
        had = _HAD.search(text)
        node = _NODE.search(text)
        source = _source_from_message(text) or _source_from_traceback(exc)
        return NonFinite(mode, False, steps, step["n"], op_type=m.group(3),
                         op_name=node.group(1) if node else m.group(3), kind=had.group(1) if had else "NaN/Inf",
                         source=source, how=how)
    finally:
        tf.debugging.disable_check_numerics()
    return NonFinite(mode, False, steps, None, how=f"{how}: with checking on every value stayed finite (checking "
                                                   "changed the graph, so the unchecked graph's rewrite is the cause)")


def non_finite_values(values: dict, *, comparison_batch_only: bool = True, masks_ok: bool = False) -> dict[str, str]:
    """The non-finite counts of an equivalence snapshot: of what it checks on its one batch (the forward output
    and each gradient), or of everything in it (the K steps' losses and final weights too). With `masks_ok`, an
    infinity in the forward output or gradients (a -inf attention mask) is a value like any other: only NaN there
    counts, while any non-finite loss or weight still does."""
    out = {}
    for key, value in values.items():
        value = np.asarray(value)
        batch_only = key.startswith(("forward", "gradients["))
        if (not comparison_batch_only or batch_only) and value.dtype.kind in "fc":
            bad = int((np.isnan(value) if masks_ok and batch_only else ~np.isfinite(value)).sum())
            if bad:
                out[key] = f"{bad} of {value.size}"
    return out


def _is_update(op) -> bool:
    return "Apply" in op.type or op.type in ("Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
                                             "AssignAddVariableOp", "AssignSubVariableOp")


def locate_tf1(runner, batches: list[dict], step: int, *, forward_batch: dict | None = None) -> NonFinite:
    """Fetch every floating-point output at `step` and find the first op that turns finite inputs non-finite.

    With `forward_batch`: the forward output and gradients on that batch instead (no update is run)."""
    graph, session = runner.graph, runner.sess
    parts = runner.parts
    if forward_batch is None:
        step_ops = ancestors([parts.train_op, parts.loss])  # not the weight loader's unfed placeholders
        run_also, feed = [parts.train_op], None
    else:
        step_ops = {op for op in ancestors([parts.output, parts.train_op]) if not _is_update(op)}
        run_also, feed = [], runner.feed(forward_batch)
    tensors = [t for op in graph.get_operations() if op in step_ops for t in op.outputs
               if t.dtype.is_floating and t.dtype != tf.resource and op.type not in ("Const", "Placeholder")]
    runner.reset()
    if forward_batch is None:
        if step > 1:
            runner.train(batches[:step - 1])
        feed = runner.feed(batches[step - 1])
    values = session.run(tensors + run_also, feed)[:len(tensors)]
    finite = {t.name: bool(np.all(np.isfinite(v))) for t, v in zip(tensors, values)}
    how = (f"located by fetching every floating-point output of the "
           f"{'step' if forward_batch is None else 'forward pass and gradients'} in the TF1 Session")
    for op in graph.get_operations():  # graph order is creation order: inputs come first
        outs = [t for t in op.outputs if t.name in finite]
        if not outs or all(finite[t.name] for t in outs):
            continue
        if all(finite.get(t.name, True) for t in op.inputs):
            bad = next(v for t, v in zip(tensors, values) if t.name in {o.name for o in outs}
                       and not np.all(np.isfinite(v)))
            kind = "NaN" if np.isnan(bad).any() else ("-Inf" if (bad == -np.inf).any() else "Inf")
            frames = [f for f in (op.traceback or []) if _user(f.filename)]
            source = f"{frames[-1].filename}:{frames[-1].lineno} ({frames[-1].name})" if frames else None
            return NonFinite(runner.name, False, len(batches), step if forward_batch is None else None,
                             op_type=op.type, op_name=op.name, kind=kind, source=source, how=how)
    return NonFinite(runner.name, False, len(batches), step if forward_batch is None else None,
                     how=f"{how}: no single op found (the non-finite value arrives through a variable or a loop)")
