"""The equivalence phase of a case: every mode against tf1-graph on the same seeded weights and batches.

`check` runs the K steps in each mode and compares them with tf1-graph's (`core.equivalence`), runs them
again from the restored state (a step that leaks state makes an error row), marks NaN and inf, and on a
mismatch adds the diagnosis: the first layer whose output differs, or the optimizer setting that explains
a different update.
"""

from __future__ import annotations

from tfcompare.core import equivalence, optimizer_replay
from tfcompare.core.cases import case_source
from tfcompare.core.layer_outputs import first_differing_layer
from tfcompare.core.modes import MODES, REFERENCE_MODE
from tfcompare.core.results import ModeResult
from tfcompare.core.runners import Runner
from tfcompare.core.watchdog import TimedOut
from tfcompare.run.case_run import _CaseRun, _message

__all__ = ["check"]


def _optimizers(tf1_runner: Runner, tf2_runner: Runner) -> str:
    """What each side updates with: TF1's apply ops in its graph, TF2's optimizer class (for a diagnosis)."""
    graph = getattr(tf1_runner, "graph", None)
    applies = sorted({op.type for op in graph.get_operations() if "Apply" in op.type}) if graph is not None else []
    optimizer = getattr(getattr(tf2_runner, "model", None), "optimizer", None)
    tf2 = f"{type(optimizer).__module__}.{type(optimizer).__name__}" if optimizer is not None else "unknown"
    return f"TF1 applies {', '.join(applies) or 'no Apply op'}; TF2 uses {tf2}"


def _record_equivalence(row: ModeResult, eq: equivalence.Equivalence) -> None:
    row.equivalence = eq.to_json()
    row.max_abs_err, row.max_rel_err, row.tolerance = eq.max_abs_err, eq.max_rel_err, str(eq.tolerance)
    worst = eq.worst()
    row.worst_check = worst.name if worst else None


def check(case_run: _CaseRun) -> None:
    """Compare each mode with the tf1-graph reference (built untimed if it was not selected)."""
    reference = case_run.runners.get(REFERENCE_MODE)
    extra, why = None, None
    if reference is None and REFERENCE_MODE not in case_run.rows:
        extra = case_run._runner(REFERENCE_MODE)
        try:
            case_run._guard(REFERENCE_MODE, "reference build",
                            lambda: (extra.build(), extra.first_call(case_run.batch)))
            reference = extra
        except Exception as exc:
            reference, why = None, f"reference {REFERENCE_MODE} failed: {_message(exc)}"
    elif reference is None:
        why = f"reference {REFERENCE_MODE} failed: {case_run.rows[REFERENCE_MODE].error}"
    try:
        if reference is None:
            for mode, runner in case_run.runners.items():
                case_run.rows[mode].fail("error", f"no equivalence check: {why}")
            return
        try:
            ref = case_run._guard(REFERENCE_MODE, "equivalence run",
                                  lambda: equivalence.snapshot(reference, case_run.batch, case_run.batches))
            case_run.reference_values = ref
            if REFERENCE_MODE in case_run.rows:
                _non_finite(case_run, case_run.rows[REFERENCE_MODE], ref)
        except Exception as exc:
            for mode in case_run.runners:
                case_run.rows[mode].fail("error", f"{REFERENCE_MODE} equivalence run failed: {_message(exc)}")
            return
        traced_agrees = False  # tf2-function's forward pass and gradients agreed with the reference
        for mode, runner in list(case_run.runners.items()):
            row = case_run.rows[mode]
            probes = not (MODES.get(mode) and MODES[mode].jit_compile and not case_run.config.xla_probes
                          and traced_agrees)
            try:
                values = case_run._guard(mode, "equivalence run", lambda: equivalence.snapshot(
                    runner, case_run.batch, case_run.batches, probes=probes))
                leak = None
                if mode != REFERENCE_MODE:  # the same steps again from the restored state: bit-identical?
                    t0 = case_run.timer.clock()
                    again = case_run._guard(mode, "state check", lambda: equivalence.snapshot(
                        runner, case_run.batch, case_run.batches, probes=probes))
                    row.state_check_s = case_run.timer.clock() - t0
                    tol = equivalence.tolerance(case_run.case.dtype, case_run.case.tolerances.get(mode))
                    leak = equivalence.leak(values, again, runner.state_created_since(), tol)
                    rerun = equivalence.rerun_difference(values, again)
                if leak:
                    row.fail("error", leak)
                    continue
                eq = equivalence.compare(values, equivalence.same_quantities(ref, values), case_run.case.dtype,
                                         case_run.case.tolerances.get(mode))
                if not probes and not eq.ok:  # XLA's own forward pass and gradients after all: where it starts
                    values = case_run._guard(mode, "equivalence run",
                                             lambda: equivalence.snapshot(runner, case_run.batch, case_run.batches))
                    eq, probes = equivalence.compare(values, ref, case_run.case.dtype,
                                                     case_run.case.tolerances.get(mode)), True
                if mode == "tf2-function":
                    traced_agrees = all(c.ok for c in eq.checks if not c.name.startswith(("losses", "weights[")))
            except TimedOut as exc:
                case_run._drop(mode, str(exc))
                continue
            except Exception as exc:
                row.fail("error", _message(exc))
                continue
            _record_equivalence(row, eq)
            if not probes:
                row.equivalence["compared"] = equivalence.STEPS_ONLY
            if mode != REFERENCE_MODE:  # the run's own noise: threads that add in another order each run
                row.equivalence["rerun_max_abs_diff"] = rerun
            if _non_finite(case_run, row, values, ref):
                continue
            if not eq.ok:
                message = equivalence.diagnose(eq, values, ref)
                if "optimizer update" in message:
                    message += f" ({_replay(case_run, reference, runner, ref, eq.tolerance.rtol)})"
                elif message.startswith("the forward pass differs"):
                    message += _first_layer(case_run, reference, runner, eq.tolerance)
                row.fail("mismatch", f"{message} ({eq.tolerance})")
    finally:
        if extra is not None:
            extra.close()


def _non_finite(case_run: _CaseRun, row: ModeResult, values: dict, reference: dict | None = None) -> bool:
    """Mark the row `non-finite` when its own numbers are NaN or inf (whatever the reference has): where it
    starts, whether tf1-graph has it too, and the command that finds the first op."""
    where = equivalence.non_finite(values)
    if where is None:
        return False
    if reference is not None:
        where += ("; tf1-graph too" if equivalence.non_finite(reference) else "; tf1-graph stays finite")
    source = case_source(case_run.case)
    row.fail("non-finite", f"{where}; the first op that produces it: tfcompare debug {case_run.case.name}"
                           + (f" --cases-file {source}" if source else ""))
    return True


def _first_layer(case_run: _CaseRun, reference: Runner, runner: Runner, tol) -> str:
    """`; first in layer 'hidden' (...)` when Keras layer names match TF1 scopes; never an error."""
    try:
        found = case_run._guard(runner.name, "layer outputs", lambda: first_differing_layer(
            reference, runner, case_run.batch, tol.rtol, tol.atol))
    except Exception:
        return ""
    return f"; the first layer whose output differs: {found}" if found else ""


def _replay(case_run: _CaseRun, reference: Runner, runner: Runner, ref: dict, rtol: float) -> str:
    """Both optimizers, and which setting explains their difference (the same gradients through both)."""
    graph, session = getattr(reference, "graph", None), getattr(reference, "sess", None)
    theirs = getattr(getattr(runner, "model", None), "optimizer", None)
    try:
        mine = optimizer_replay.tf1_optimizer(graph, session) if session is not None else None
        other = optimizer_replay.tf2_optimizer(theirs)
        if mine is None or other is None:
            return _optimizers(reference, runner)
        grads = equivalence.gradients_of(ref)
        found = case_run._guard(runner.name, "optimizer replay", lambda: optimizer_replay.replay(
            mine, other, theirs, case_run.weights, grads, len(case_run.batches), rtol))
    except Exception as exc:  # a diagnosis must never turn a mismatch row into an error
        return f"{_optimizers(reference, runner)}; the optimizer replay failed: {_message(exc)}"
    case_run.rows[runner.name].optimizer_replay = found.to_json()
    return found.line()
