"""The retracing audit: run the user's code, see every `tf.function` trace with its real cache key,
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
import importlib
import itertools
import logging
import os
import runpy
import statistics
import sys
import threading
import time
import traceback
import weakref
from pathlib import Path
from typing import Any, Callable

import tensorflow as tf

__all__ = ["Retrace", "FunctionAudit", "Hazard", "AuditReport", "Auditor", "TRACE_MESSAGE", "TargetError",
           "audit_target", "audit_callable", "measure_overhead", "QuietRetraceWarning"]

TRACE_MESSAGE = "Creating new FuncGraph for Python function"
_SKIP_FRAMES = (os.sep + "tensorflow" + os.sep, os.sep + "logging" + os.sep, os.sep + "keras" + os.sep,
                os.path.join("tfcompare", "audit.py"), os.sep + "absl" + os.sep)


@dataclasses.dataclass
class Retrace:
    """One trace after the first of a function, and why it happened."""

    trace: int
    argument: str
    cause: str
    detail: str
    call_site: str
    suggestion: str
    tracing_s: float | None = None
    harmless: bool = False


@dataclasses.dataclass
class FunctionAudit:
    name: str
    file: str
    line: int
    calls: int
    traces: int
    tracing_s: float
    function_objects: int = 1
    retraces: list[Retrace] = dataclasses.field(default_factory=list)
    signatures: list[str] = dataclasses.field(default_factory=list)

    @property
    def avoidable_retraces(self) -> int:
        return sum(not r.harmless for r in self.retraces)


@dataclasses.dataclass
class Hazard:
    kind: str
    file: str
    line: int
    message: str


@dataclasses.dataclass
class AuditReport:
    target: str
    status: str = "ok"  # ok / failed
    error: str | None = None
    traceback: str | None = None
    exit_code: int | None = None  # the target's own sys.exit code, if it called sys.exit
    explanations: bool = True
    note: str | None = None
    wall_s: float | None = None
    functions: list[FunctionAudit] = dataclasses.field(default_factory=list)
    hazards: list[Hazard] = dataclasses.field(default_factory=list)

    @property
    def total_traces(self) -> int:
        return sum(f.traces for f in self.functions)

    def to_json(self) -> dict:
        return {
            "target": self.target, "status": self.status, "error": self.error, "traceback": self.traceback,
            "exit_code": self.exit_code, "explanations": self.explanations, "note": self.note,
            "wall_s": self.wall_s,
            "functions": [dict(dataclasses.asdict(f), retraces=[dataclasses.asdict(r) for r in f.retraces])
                          for f in self.functions],
            "hazards": [dataclasses.asdict(h) for h in self.hazards],
        }


# -- diffing two trace keys ---------------------------------------------------------------------------

def _kind(t) -> str:
    return type(t).__name__


def _components(t):
    if _kind(t) == "List":
        return t.components_tuple.components
    return t.components


def _diff(old, new, path: str):
    """Yield (argument path, cause, detail) for each difference between two trace types."""
    if old == new:
        return
    kind_old, kind_new = _kind(old), _kind(new)
    if kind_old != kind_new:
        yield path, "kind_changed", f"{_show(old)} -> {_show(new)}"
        return
    if isinstance(new, tf.TensorSpec):
        if old.dtype != new.dtype:
            yield path, "dtype_changed", f"{old.dtype.name} -> {new.dtype.name}"
        if old.shape != new.shape:
            if old.shape.rank != new.shape.rank:
                yield path, "shape_changed", f"rank {old.shape.rank} -> {new.shape.rank} ({old.shape} -> {new.shape})"
            else:
                dims = [f"dim {i}: {a} -> {b}" for i, (a, b) in enumerate(zip(old.shape.as_list(), new.shape.as_list()))
                        if a != b]
                yield path, "shape_changed", ", ".join(dims)
        return
    if kind_new == "Literal":
        yield path, "python_value_changed", f"{old.value!r} -> {new.value!r}"
        return
    if kind_new == "Weakref":
        yield path, "new_python_object", f"{_show(old)} -> {_show(new)} (a different object: identity is the key)"
        return
    if kind_new in ("List", "Tuple"):
        a, b = _components(old), _components(new)
        if len(a) != len(b):
            yield path, "structure_changed", f"{kind_new.lower()} length {len(a)} -> {len(b)}"
            return
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _diff(x, y, f"{path}[{i}]")
        return
    if kind_new == "Dict":
        if set(old.mapping) != set(new.mapping):
            yield path, "structure_changed", f"dict keys {sorted(map(str, old.mapping))} -> {sorted(map(str, new.mapping))}"
            return
        for k in new.mapping:
            yield from _diff(old.mapping[k], new.mapping[k], f"{path}[{k!r}]")
        return
    yield path, "type_changed", f"{_show(old)} -> {_show(new)}"


def _show(t) -> str:
    if isinstance(t, tf.TensorSpec):
        return f"TensorSpec({t.shape}, {t.dtype.name})"
    if _kind(t) == "Literal":
        return f"{type(t.value).__name__} {t.value!r}"
    if _kind(t) == "Weakref":
        ref = t._ref() if hasattr(t, "_ref") else None  # noqa: SLF001 - best effort, for display only
        return f"<{type(ref).__name__} object>" if ref is not None else "<object>"
    return repr(t)


def _diff_types(old, new) -> list[tuple[str, str, str]]:
    out = []
    for name in dict.fromkeys(list(old.parameters) + list(new.parameters)):
        if name not in old.parameters or name not in new.parameters:
            out.append((name, "structure_changed", "parameter added or removed"))
            continue
        out.extend(_diff(old.parameters[name].type_constraint, new.parameters[name].type_constraint, name))
    return out


def _signature(ftype) -> str:
    return "(" + ", ".join(f"{n}: {_show(p.type_constraint)}" for n, p in ftype.parameters.items()) + ")"


# -- suggestions ------------------------------------------------------------------------------------------

def _spec_text(spec) -> str:
    dims = "[" + ", ".join("None" if d is None else str(d) for d in spec.shape.as_list()) + "]"
    return f"tf.TensorSpec(shape={dims}, dtype=tf.{spec.dtype.name})"


def _generalized_signature(types: list) -> str | None:
    """A ready-to-paste input_signature with None exactly where the traced shapes differed, if all args are tensors."""
    params = list(types[0].parameters)
    specs = []
    for name in params:
        seen = [t.parameters[name].type_constraint for t in types if name in t.parameters]
        if not all(isinstance(s, tf.TensorSpec) for s in seen) or len({s.dtype for s in seen}) != 1:
            return None
        if len({s.shape.rank for s in seen}) != 1:
            return None
        specs.append(functools.reduce(lambda a, b: a.most_specific_common_supertype([b]), seen))
    return "@tf.function(input_signature=[" + ", ".join(_spec_text(s) for s in specs) + "])"


def _suggest(cause: str, argument: str, detail: str, types: list, values_seen: list) -> tuple[str, bool]:
    """The fix for one retrace, and whether it is expected and harmless."""
    if cause == "shape_changed":
        sig = _generalized_signature(types)
        return ((f"{sig}  (None at exactly the dims that varied), or " if sig else "")
                + "@tf.function(reduce_retracing=True), or pad inputs to a few bucket sizes"), False
    if cause == "dtype_changed":
        return f"cast `{argument}` to one dtype before the call (tf.cast)", False
    if cause == "python_value_changed":
        if values_seen and all(isinstance(v, bool) for v in values_seen) and len(set(values_seen)) <= 2:
            return (f"expected: one graph per value of the flag `{argument}` ({len(set(values_seen))} values); "
                    "harmless"), True
        return (f"pass `{argument}` as a tensor (tf.constant(...)) instead of a Python "
                f"{type(values_seen[-1]).__name__ if values_seen else 'value'}: every new value traces a new graph"), False
    if cause == "new_python_object":
        return (f"pass the same object for `{argument}` every call, or pass tensors; a class of yours can define "
                "__tf_tracing_type__ or be a tf.experimental.ExtensionType"), False
    if cause == "structure_changed":
        return (f"keep the structure of `{argument}` fixed: stack a variable-length list into one tensor "
                "(or a tf.RaggedTensor), keep dict keys the same"), False
    if cause == "kind_changed":
        return f"pass the same kind of value for `{argument}` every call (always a tensor, or always a Python value)", False
    if cause == "function_recreated":
        return ("hoist the tf.function out of the loop (or out of the per-instance factory): create it once and "
                "call it many times; each new tf.function object starts with an empty trace cache"), False
    if cause == "context_changed":
        if "VARIABLE_CREATION" in detail:
            return ("expected: a tf.function that creates tf.Variables on its first call traces twice; harmless, "
                    "but creating the variables outside the function avoids it"), True
        return "call the function under one device / graph / distribution strategy scope", False
    return "pass values of a stable type and structure every call", False


# -- the auditor --------------------------------------------------------------------------------------------

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
            return "triggered tf.function retracing" not in record.getMessage()
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
                    if new:
                        cost = (counter() - built) / 1e6 if counter else elapsed
                        for t in new:
                            t.tracing_s = cost / len(new)
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
                report.functions.append(FunctionAudit(
                    name=getattr(code, "co_qualname", getattr(code, "co_name", "?")),
                    file=getattr(code, "co_filename", "?"), line=getattr(code, "co_firstlineno", 0),
                    calls=self._calls.get(code, 0), traces=count, tracing_s=0.0,
                    function_objects=len(self._functions.get(code, ()))))
        for code, traces in by_code.items():
            first = traces[0]
            audit = FunctionAudit(
                name=first.name, file=first.file, line=first.line, calls=self._calls.get(code, 0),
                traces=len(traces), tracing_s=sum(t.tracing_s or 0.0 for t in traces),
                function_objects=len(self._functions.get(code, ())) or 1,
                signatures=[_signature(t.ftype) for t in traces])
            for i, t in enumerate(traces[1:], start=2):
                audit.retraces.extend(self._explain(i, t, traces[:i - 1]))
            report.functions.append(audit)
        report.functions.sort(key=lambda f: (f.avoidable_retraces, f.tracing_s), reverse=True)
        return report

    def _explain(self, index: int, trace: _Trace, earlier: list[_Trace]) -> list[Retrace]:
        """Compare with the closest earlier trace (fewest differences), as JAX explains cache misses."""
        best = min(earlier, key=lambda e: len(_diff_types(e.ftype, trace.ftype)))
        diffs = _diff_types(best.ftype, trace.ftype)
        if not diffs:
            if best.function_id != trace.function_id and best.context == trace.context:
                diffs = [("-", "function_recreated",
                          f"same code and same input types, but a new tf.function object "
                          f"(traced by {len({e.function_id for e in earlier} | {trace.function_id})} objects so far)")]
            else:
                diffs = [("-", "context_changed", f"{best.context} -> {trace.context}")]
        types = [e.ftype for e in earlier] + [trace.ftype]
        out = []
        for argument, cause, detail in diffs:
            values = _literal_values(types, argument)
            suggestion, harmless = _suggest(cause, argument, detail, types, values)
            out.append(Retrace(trace=index, argument=argument, cause=cause, detail=detail,
                               call_site=trace.call_site, suggestion=suggestion,
                               tracing_s=trace.tracing_s, harmless=harmless))
        return out


def _literal_values(types, argument: str) -> list:
    values = []
    for t in types:
        p = t.parameters.get(argument)
        if p is not None and _kind(p.type_constraint) == "Literal":
            values.append(p.type_constraint.value)
    return values


def _graph_building_counter() -> Callable[[], int] | None:
    """TF's process-wide graph-building time in µs (a monitoring counter); None if this TF has none."""
    try:
        from tensorflow.python.eager.polymorphic_function import tracing_compilation

        cell = tracing_compilation._graph_building_time_counter.get_cell()  # noqa: SLF001 - read-only
        cell.value()
        return cell.value
    except Exception:
        return None


class QuietRetraceWarning:
    """Drop TensorFlow's "N out of the last M calls ... retracing" warning while the harness runs.

    The harness and the demonstrations create `tf.function`s on purpose, which TF's detector (keyed by
    source code) takes for retracing; real retraces are counted exactly and reported instead.
    """

    def filter(self, record):
        return "triggered tf.function retracing" not in record.getMessage()

    def __enter__(self):
        tf.get_logger().addFilter(self)
        return self

    def __exit__(self, *exc):
        tf.get_logger().removeFilter(self)


# -- running what the user named -------------------------------------------------------------------------

class TargetError(Exception):
    """The target cannot be run at all (missing file, bad `module:function`)."""


def _run_target(target: str, args: tuple[str, ...]) -> str | None:
    """Run a script as __main__ (with ARGS as sys.argv[1:]) or call `package.module:function`.

    Returns the source file, for the static pass.
    """
    if ":" in target and not Path(target).exists():
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise TargetError(f"cannot import {module_name!r}: {exc}") from exc
        fn = getattr(module, attr, None)
        if not callable(fn):
            raise TargetError(f"{module_name!r} has no function {attr!r}")
        fn()
        return getattr(module, "__file__", None)
    path = Path(target)
    if not path.is_file():
        raise TargetError(f"target {target!r} does not exist (give a script path or package.module:function)")
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path)] + list(args)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return str(path)


def _user_traceback(exc: BaseException) -> str:
    """The traceback without the audit's own and runpy's frames: what the user's code did."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack
         if not f.filename.endswith((os.path.join("tfcompare", "audit.py"), "runpy.py", "<frozen runpy>"))])
    return "".join(te.format())


def _observe(report_target: str, run: Callable[[], str | None], static: bool) -> AuditReport:
    auditor = Auditor()
    status, error, tb, exit_code, source = "ok", None, None, None, None
    t0 = time.perf_counter()
    with auditor.observe():
        try:
            source = run()
        except SystemExit as exc:  # a target that calls sys.exit ends normally
            exit_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except TargetError as exc:
            status, error = "failed", str(exc)
        except Exception as exc:  # the user's code raised: report it and what was traced until then
            status, error, tb = "failed", f"{type(exc).__name__}: {exc}", _user_traceback(exc)
    report = auditor.report(report_target)
    report.status, report.error, report.traceback, report.exit_code = status, error, tb, exit_code
    report.wall_s = time.perf_counter() - t0
    if static and source is None and Path(report_target).is_file():
        source = report_target
    if static and source and Path(source).is_file():
        from tfcompare.hazards import scan_path

        report.hazards.extend(scan_path(source))
    return report


def audit_target(target: str, args: tuple[str, ...] = (), *, static: bool = True) -> AuditReport:
    """Run the user's script or `module:function` under observation and explain its traces."""
    return _observe(target, lambda: _run_target(target, args), static)


def audit_callable(fn: Callable[[], None], name: str, *, static: bool = True) -> AuditReport:
    """Observe one Python callable (the built-in scenarios)."""
    def run():
        fn()
        return getattr(sys.modules.get(fn.__module__), "__file__", None)
    return _observe(name, run, static)


def measure_overhead(fn: Callable[[], None], repeats: int = 5) -> dict:
    """Wall time of `fn` plain and audited, interleaved (plain, audited, plain, ...); medians and their ratio."""
    plain, audited = [], []
    fn()  # warm TensorFlow up before either side is timed
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        plain.append(time.perf_counter() - t0)
        auditor = Auditor()
        t0 = time.perf_counter()
        with auditor.observe():
            fn()
        auditor.report("overhead")
        audited.append(time.perf_counter() - t0)
    p, a = statistics.median(plain), statistics.median(audited)
    return {"plain_s": p, "audited_s": a, "ratio": a / p, "repeats": repeats, "plain_samples": plain,
            "audited_samples": audited}
