"""The audit's observer: see every `tf.function` trace with its real cache key,
and explain each retrace (which argument, what changed, what it cost, how to fix it).

How traces are seen: for every new trace TF 2.21 logs, at verbosity 1, "Creating new FuncGraph for
Python function %r (key: %r, %r)" with the real `FunctionContext` and `FunctionType` as record args.
A `logging.Filter` on TensorFlow's logger takes those records (and drops them, so nothing is
printed). Call counts, the function object that traced, and tracing time come from a wrapper around
`tf.function`'s `__call__`, in place only while the target runs. If the log message ever disappears
(another TF version), traces are still counted through `experimental_get_tracing_count()` and the
report says that explanations are unavailable rather than reporting nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import logging
import os
import threading
import time
import traceback
import weakref
from typing import Any, Callable

import tensorflow as tf

from tfcompare.core.trace_log import RETRACING_WARNING, TRACE_MESSAGE
from tfcompare.tools.audit.cache_keys import diff_types, literal_values, remember, signature
from tfcompare.tools.audit.report import AuditReport, FunctionAudit, Hazard, Retrace
from tfcompare.tools.audit.suggestions import suggest

__all__ = ["Auditor"]

_LIBRARIES = (os.sep + "tensorflow" + os.sep, os.sep + "keras" + os.sep, os.sep + "tf_keras" + os.sep)
_SKIP_FRAMES = _LIBRARIES + (os.sep + "logging" + os.sep, os.path.join("tfcompare", "tools", "audit") + os.sep,
                             os.sep + "absl" + os.sep, "__autograph_generated_file")


def _library(file: str) -> bool:
    """A function TensorFlow or Keras defines (e.g. the variable initializer a tf.function traces on its first
    call, or Keras's train function): not the user's to fix."""
    return any(part in file for part in _LIBRARIES)


def _context_change(old, new) -> str:
    """What differs between two trace contexts, in a line (a scope change is the usual one)."""
    if getattr(old, "context", None) == getattr(new, "context", None) and \
            getattr(old, "scope_type", None) != getattr(new, "scope_type", None):
        return f"scope {old.scope_type.name} -> {new.scope_type.name}"
    return f"{old} -> {new}"


@dataclasses.dataclass
class _Trace:
    code: Any
    name: str
    file: str
    line: int
    ftype: Any
    context: Any
    call_site: str
    function_id: int | None
    tracing_s: float | None = None


class _Hook(logging.Filter):
    """Takes TF's per-trace records off its logger (nothing is printed) and passes everything else on."""

    def __init__(self, auditor: "Auditor", passthrough: int):
        super().__init__()
        self.auditor, self.passthrough = auditor, passthrough

    def filter(self, record):
        if record.levelno >= self.passthrough:
            # TF's own "N out of the last M calls ... retracing" warning: the report explains every one
            return RETRACING_WARNING not in record.getMessage()
        if isinstance(record.msg, str) and record.msg.startswith(TRACE_MESSAGE) and len(record.args or ()) == 3:
            self.auditor._on_trace(*record.args)
        return False


def _unwrap(fn):
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    fn = getattr(fn, "__func__", fn)
    return fn


def _call_site() -> str:
    for frame in reversed(traceback.extract_stack()):
        if not any(part in frame.filename for part in _SKIP_FRAMES):
            return f"{frame.filename}:{frame.lineno}"
    return "?"


class Auditor:
    """Observe traces while `with Auditor() as a:` is open; `a.report(target)` explains them."""

    def __init__(self):
        self._traces: list[_Trace] = []
        self._calls: dict[Any, int] = {}
        self._functions: dict[Any, set[int]] = {}
        self._public_counts: dict[int, tuple[Any, int]] = {}
        self._literals: dict[tuple, dict] = {}
        self._hazards: list[Hazard] = []
        self._local = threading.local()
        self._lock = threading.Lock()
        self._serial = itertools.count(1)
        self._ids: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def _id(self, function) -> int:
        """A serial number per tf.function object (ids of collected objects get reused)."""
        try:
            if function not in self._ids:
                self._ids[function] = next(self._serial)
            return self._ids[function]
        except TypeError:
            return id(function)

    # the log hook --------------------------------------------------------------------------------------
    def _on_trace(self, python_function, context, ftype):
        fn = _unwrap(python_function)
        code = getattr(fn, "__code__", fn)
        current = getattr(self._local, "function_id", None)
        try:
            remember(ftype)
        except Exception:  # display only: an unexpected trace type must not stop the audit
            pass
        with self._lock:
            self._traces.append(_Trace(
                code=code, name=getattr(fn, "__qualname__", repr(fn)),
                file=getattr(code, "co_filename", "?"), line=getattr(code, "co_firstlineno", 0),
                ftype=ftype, context=context, call_site=_call_site(), function_id=current))

    # the call wrapper ------------------------------------------------------------------------------------
    def _wrap_call(self, original: Callable) -> Callable:
        auditor = self
        counter = _graph_building_counter()

        @functools.wraps(original)
        def __call__(function_self, *args, **kwargs):
            fn = _unwrap(function_self.python_function)
            code = getattr(fn, "__code__", fn)
            outer = getattr(auditor._local, "function_id", None)
            fid = auditor._id(function_self)
            auditor._local.function_id = fid
            n_before = len(auditor._traces)
            built = counter() if counter else None
            t0 = time.perf_counter()
            try:
                return original(function_self, *args, **kwargs)
            finally:
                elapsed = time.perf_counter() - t0
                auditor._local.function_id = outer
                with auditor._lock:
                    auditor._calls[code] = auditor._calls.get(code, 0) + 1
                    auditor._functions.setdefault(code, set()).add(fid)
                    auditor._public_counts[fid] = (code, function_self.experimental_get_tracing_count())
                    new = [t for t in auditor._traces[n_before:] if t.function_id == fid]
                    if new and outer is None:
                        cost = (counter() - built) / 1e6 if counter else elapsed
                        for t in new:
                            t.tracing_s = cost / len(new)
                    # called while another tf.function traces: TF counts the building time when the outer graph
                    # is done, so it is the outer function's (tracing_s stays None: not measured, not zero)
                    auditor._check_literals(code, fn, args, kwargs, traced=bool(new))

        return __call__

    def _check_literals(self, code, fn, args, kwargs, traced: bool):
        """`1`, `1.0` and `True` are equal, so they share one trace: the float call silently gets the int graph."""
        items = list(enumerate(args)) + list(kwargs.items())
        for key, value in items:
            if type(value) not in (int, float, bool):
                continue
            seen = self._literals.setdefault((code, key), {})  # type -> value, of calls that traced
            for other_type, other_value in list(seen.items()):
                if other_type is not type(value) and other_value == value and not traced:
                    site = _call_site()
                    file, _, line = site.rpartition(":")
                    arg = f"args[{key}]" if isinstance(key, int) else key
                    self._hazards.append(Hazard(
                        "literal_collision", file, int(line) if line.isdigit() else 0,
                        f"{getattr(fn, '__qualname__', fn)}: {arg}={value!r} ({type(value).__name__}) reused the graph "
                        f"traced for {other_value!r} ({other_type.__name__}); Python 1, 1.0 and True share one trace, "
                        f"so the result may have the wrong dtype or value; pass a tensor instead"))
            if traced:
                seen.setdefault(type(value), value)

    @contextlib.contextmanager
    def observe(self):
        """Install the log hook and the call wrapper; restore TF's logger and class exactly afterwards."""
        from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

        logger = tf.get_logger()
        old_level = logger.level
        hook = _Hook(self, passthrough=logger.getEffectiveLevel())
        original = pf.Function.__call__
        logger.addFilter(hook)
        logger.setLevel(1)
        pf.Function.__call__ = self._wrap_call(original)
        try:
            yield self
        finally:
            pf.Function.__call__ = original
            logger.setLevel(old_level)
            logger.removeFilter(hook)

    # the report ------------------------------------------------------------------------------------------
    def report(self, target: str) -> AuditReport:
        report = AuditReport(target=target, hazards=list(self._hazards))
        by_code: dict[Any, list[_Trace]] = {}
        for t in self._traces:
            by_code.setdefault(t.code, []).append(t)
        public_total: dict[Any, int] = {}
        for code, count in self._public_counts.values():
            public_total[code] = public_total.get(code, 0) + count
        if not self._traces and any(public_total.values()):
            report.explanations = False
            report.note = (f"TensorFlow {tf.__version__} did not log '{TRACE_MESSAGE}'; trace counts come from "
                           "experimental_get_tracing_count() and the retraces cannot be explained")
            for code, count in public_total.items():
                if _library(getattr(code, "co_filename", "")):
                    continue
                report.functions.append(FunctionAudit(
                    name=getattr(code, "co_qualname", getattr(code, "co_name", "?")),
                    file=getattr(code, "co_filename", "?"), line=getattr(code, "co_firstlineno", 0),
                    calls=self._calls.get(code, 0), traces=count, tracing_s=0.0,
                    function_objects=len(self._functions.get(code, ()))))
        library = {code: traces for code, traces in by_code.items() if _library(traces[0].file)}
        for traces in library.values():
            name = traces[0].name.replace(".<locals>", "")
            report.library_traces[name] = report.library_traces.get(name, 0) + len(traces)
        if library:
            counts = ", ".join(f"{n.rsplit('.', 1)[-1]} {c}" for n, c in sorted(report.library_traces.items()))
            report.note = ((report.note + "; ") if report.note else "") + (
                f"{sum(report.library_traces.values())} traces of TensorFlow/Keras-internal functions are not listed "
                f"({counts}): they are the library's (variable initializers, Keras's train/predict functions), "
                "traced for your code")
        for code, traces in by_code.items():
            if code in library:
                continue
            first = traces[0]
            audit = FunctionAudit(
                name=first.name, file=first.file, line=first.line, calls=self._calls.get(code, 0),
                traces=len(traces), tracing_s=sum(t.tracing_s or 0.0 for t in traces),
                nested=all(t.tracing_s is None for t in traces),
                function_objects=len(self._functions.get(code, ())) or 1,
                signatures=[signature(t.ftype) for t in traces], first_call_site=first.call_site,
                first_tracing_s=first.tracing_s)
            for i, t in enumerate(traces[1:], start=2):
                audit.retraces.extend(self._explain(i, t, traces[:i - 1]))
            report.functions.append(audit)
        report.functions.sort(key=lambda f: (f.avoidable_retraces, f.tracing_s), reverse=True)
        return report

    def _explain(self, index: int, trace: _Trace, earlier: list[_Trace]) -> list[Retrace]:
        """Compare with the closest earlier trace (fewest differences), as JAX explains cache misses."""
        best = min(earlier, key=lambda e: len(diff_types(e.ftype, trace.ftype)))  # the first of the closest
        diffs = diff_types(best.ftype, trace.ftype)
        if not diffs:
            if best.function_id != trace.function_id and best.context == trace.context:
                diffs = [("-", "function_recreated",
                          f"same code and same input types, but a new tf.function object "
                          f"(traced by {len({e.function_id for e in earlier} | {trace.function_id})} objects so far)")]
            else:
                diffs = [("-", "context_changed", _context_change(best.context, trace.context))]
        types = [e.ftype for e in earlier] + [trace.ftype]
        out = []
        for argument, cause, detail in diffs:
            values = literal_values(types, argument)
            suggestion, harmless = suggest(cause, argument, detail, types, values)
            out.append(Retrace(trace=index, argument=argument, cause=cause, detail=detail,
                               call_site=trace.call_site, suggestion=suggestion,
                               tracing_s=trace.tracing_s, harmless=harmless,
                               compared_with=earlier.index(best) + 1))
        return out


def _graph_building_counter() -> Callable[[], int] | None:
    """TF's process-wide graph-building time in µs (a monitoring counter); None if this TF has none."""
    try:
        from tensorflow.python.eager.polymorphic_function import tracing_compilation

        cell = tracing_compilation._graph_building_time_counter.get_cell()  # noqa: SLF001 - read-only
        cell.value()
        return cell.value
    except Exception:
        return None
