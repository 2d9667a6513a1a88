"""Running what the user named under the observer: a script as `__main__`, or `package.module:function`.

Only the target the user names is run; `--static` runs nothing.
"""

from __future__ import annotations

import importlib
import os
import re
import runpy
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

from tfcompare.core.timing import median_time, rotated
from tfcompare.tools.audit.hazards import scan_path
from tfcompare.tools.audit.observer import Auditor
from tfcompare.tools.audit.report import AuditReport

__all__ = ["TargetError", "audit_target", "audit_callable", "measure_overhead"]


class TargetError(Exception):
    """The target cannot be run at all (missing file, bad `module:function`)."""


def _run_target(target: str, args: tuple[str, ...]) -> tuple[str | None, dict]:
    """Run a script as __main__ (with ARGS as sys.argv[1:]) or call `package.module:function`.

    Returns the source file and its module globals as the run left them, for the static pass and its
    runtime confirmation.
    """
    if ":" in target and not Path(target).exists():
        module_name, _, attr = target.partition(":")
        if not module_name or not attr:
            raise TargetError(f"target {target!r} is not package.module:function (both parts are needed)")
        try:
            module = importlib.import_module(module_name)
        except (ImportError, ValueError) as exc:
            raise TargetError(f"cannot import {module_name!r}: {exc}") from exc
        fn = getattr(module, attr, None)
        if not callable(fn):
            raise TargetError(f"{module_name!r} has no function {attr!r}")
        fn()
        return getattr(module, "__file__", None), vars(module)
    path = Path(target)
    if not path.is_file():
        raise TargetError(f"target {target!r} does not exist (give a script path or package.module:function)")
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
    """The traceback without the audit's own and runpy's frames: what the user's code did."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack
         if os.path.join("tfcompare", "tools", "audit") + os.sep not in f.filename
         and not f.filename.endswith(("runpy.py", "<frozen runpy>"))])
    return "".join(te.format())


def _exit_as_sys_exit(code: int) -> None:
    raise SystemExit(code)


def _observe(report_target: str, run: Callable[[], tuple[str | None, dict]], static: bool) -> AuditReport:
    auditor = Auditor()
    status, error, tb, exit_code, source, values = "ok", None, None, None, None, {}
    t0 = time.perf_counter()
    real_exit = os._exit
    with auditor.observe():
        try:
            os._exit = _exit_as_sys_exit  # os._exit would end tfcompare too, with no report
            source, values = run()
        except SystemExit as exc:  # a target that calls sys.exit (or os._exit) ends normally
            exit_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except TargetError as exc:
            status, error = "failed", str(exc)
        except Exception as exc:  # the user's code raised: report it and what was traced until then
            status, error, tb = "failed", f"{type(exc).__name__}: {exc}", _user_traceback(exc)
        finally:
            os._exit = real_exit
    report = auditor.report(report_target)
    report.status, report.error, report.traceback, report.exit_code = status, error, tb, exit_code
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
