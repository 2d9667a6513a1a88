"""Running what the user named under the observer: a script as `__main__`, or `package.module:function`.

Only the target the user names is run; `--static` runs nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import runpy
import statistics
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable

from tfcompare.core.timing import median_time, rotated
from tfcompare.tools.audit.hazards import scan_path
from tfcompare.tools.audit.observer import Auditor
from tfcompare.tools.audit.report import AuditReport

__all__ = ["TargetError", "audit_target", "audit_callable", "measure_overhead"]


class TargetError(ValueError):
    """The target cannot be run at all (missing file, bad `module:function`): a usage error, raised before any
    of the user's code runs, or when the named module itself is not there."""


class _HardExit(BaseException):
    """The target called `os._exit(code)`: turned into an exception while the audit runs, so the report is still
    written (the real `os._exit` would end the process at once, with nothing reported)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def _catch_hard_exit():
    """`os._exit` in the target's main thread becomes `_HardExit`; in a forked child or another thread it stays
    the real one (a child must end there, and another thread cannot stop the audit)."""
    real, pid = os._exit, os.getpid()

    def _exit(code):
        if os.getpid() != pid or threading.current_thread() is not threading.main_thread():
            real(code)
        raise _HardExit(int(code))

    os._exit = _exit
    try:
        yield
    finally:
        os._exit = real


def _missing_module(exc: ImportError, module_name: str) -> bool:
    """Whether importing `module_name` failed because that module (or a package on its path) does not exist,
    rather than because the user's module raised while importing."""
    missing = getattr(exc, "name", None)
    return isinstance(exc, ModuleNotFoundError) and bool(missing) and \
        (module_name == missing or module_name.startswith(missing + "."))


def _function(module_name: str, attr: str):
    """`module_name.attr`, imported; a missing module or function is a `TargetError` naming it."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if not _missing_module(exc, module_name):
            raise  # the user's module failed while importing: the target failed, with its traceback
        raise TargetError(f"no module {module_name!r} ({exc}); give a script path or package.module:function "
                          f"importable from {os.getcwd()!r}") from None
    except ValueError as exc:
        raise TargetError(f"cannot import {module_name!r}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                       and getattr(v, "__module__", None) == module.__name__)
        raise TargetError(f"{module_name!r} has no function {attr!r}; its functions: "
                          f"{', '.join(names[:12]) or 'none'}")
    return fn


def _run_target(target: str, args: tuple[str, ...]) -> tuple[str | None, dict]:
    """Run a script as __main__ (with ARGS as sys.argv[1:]) or call `package.module:function`.

    Returns the source file and its module globals as the run left them, for the static pass and its
    runtime confirmation.
    """
    if ":" in target and not Path(target).exists():
        module_name, _, attr = target.partition(":")
        if not module_name or not attr:
            raise TargetError(f"target {target!r} is not package.module:function (both parts are needed)")
        saved_path = sys.path[:]
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the user's package is found from where they are
        try:
            fn = _function(module_name, attr)
            fn()
        finally:
            sys.path[:] = saved_path
        module = sys.modules[module_name]
        return getattr(module, "__file__", None), vars(module)
    path = Path(target)
    if not path.is_file():
        why = "is a folder" if path.is_dir() else "does not exist"
        raise TargetError(f"target {target!r} {why}; give a script path or package.module:function")
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path)] + list(args)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        values = runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return str(path), values


def _held_by_reference(value) -> bool:
    """Values a traced function captures by reference (changes show up), not frozen as constants."""
    import tensorflow as tf

    if isinstance(value, (tf.Variable, tf.Module)) or callable(value) or isinstance(value, type(sys)):
        return True
    if type(value).__module__.split(".")[0] == "keras":  # keras.Variable, layers, models, optimizers
        return True
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, set)) and value:
        return all(_held_by_reference(v) for v in value)
    return False


def confirm_hazards(hazards: list, values: dict, source: str) -> list:
    """The runtime half: drop a static `global_read` whose global, as the script left it, is held by reference."""
    kept = []
    for h in hazards:
        m = re.search(r"global `(\w+)`", h.message)
        if h.kind == "global_read" and h.file == source and m and m.group(1) in values \
                and _held_by_reference(values[m.group(1)]):
            continue
        kept.append(h)
    return kept


def _user_traceback(exc: BaseException) -> str:
    """The traceback without the audit's own, runpy's and importlib's frames: what the user's code did."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack
         if os.path.join("tfcompare", "tools", "audit") + os.sep not in f.filename
         and not f.filename.endswith(("runpy.py", "<frozen runpy>", os.path.join("importlib", "__init__.py")))
         and not f.filename.startswith("<frozen importlib")])
    return "".join(te.format())


def _observe(report_target: str, run: Callable[[], tuple[str | None, dict]], static: bool) -> AuditReport:
    auditor = Auditor()
    status, error, tb, exit_code, source, values = "ok", None, None, None, None, {}
    report_note = None
    t0 = time.perf_counter()
    with auditor.observe(), _catch_hard_exit():
        try:
            source, values = run()
        except SystemExit as exc:  # sys.exit(0) is a normal end; another code is the target failing
            exit_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exit_code:
                status, error = "failed", f"the target called sys.exit({exc.code!r})"
        except _HardExit as exc:
            exit_code = exc.code
            how = (f"the target called os._exit({exc.code}), which ends the process at once; the audit stopped it "
                   "there to report what was traced")
            report_note = how
            if exc.code:
                status, error = "failed", how
        except TargetError:
            raise  # nothing of the user's ran: a usage error for the caller
        except KeyboardInterrupt:  # Ctrl-C: what was traced until then is still reported
            status, error = "interrupted", "interrupted (Ctrl-C) while the target ran"
        except Exception as exc:  # the user's code raised: report it and what was traced until then
            status, error, tb = "failed", f"{type(exc).__name__}: {exc}", _user_traceback(exc)
    report = auditor.report(report_target)
    report.status, report.error, report.traceback, report.exit_code = status, error, tb, exit_code
    if report_note and not error:
        report.note = "; ".join(filter(None, [report.note, report_note]))
    report.wall_s = time.perf_counter() - t0
    if static and source is None and Path(report_target).is_file():
        source = report_target
    if static and source and Path(source).is_file():
        report.hazards.extend(confirm_hazards(scan_path(source), values, source))
    return report


def audit_target(target: str, args: tuple[str, ...] = (), *, static: bool = True) -> AuditReport:
    """Run the user's script or `module:function` under observation and explain its traces."""
    return _observe(target, lambda: _run_target(target, args), static)


def audit_callable(fn: Callable[[], None], name: str, *, static: bool = True) -> AuditReport:
    """Observe one Python callable (the built-in scenarios)."""
    def run():
        fn()
        module = sys.modules.get(fn.__module__)
        return getattr(module, "__file__", None), vars(module) if module else {}
    return _observe(name, run, static)


def measure_overhead(fn: Callable[[], None], repeats: int = 5) -> dict:
    """Wall time of `fn` plain and audited, interleaved in rotating order; medians and their ratio."""
    def audited():
        auditor = Auditor()
        with auditor.observe():
            fn()
        auditor.report("overhead")

    samples: dict[str, list[float]] = {"plain": [], "audited": []}
    fn()  # warm TensorFlow up before either side is timed
    for r in range(repeats):
        for name, call in rotated([("plain", fn), ("audited", audited)], r):
            samples[name].append(median_time(call, 1)[1][0])
    p, a = statistics.median(samples["plain"]), statistics.median(samples["audited"])
    return {"plain_s": p, "audited_s": a, "ratio": a / p, "repeats": repeats, "plain_samples": samples["plain"],
            "audited_samples": samples["audited"]}
