"""The child of `standalone.run_alone`: `python -m tfcompare.scripts.convert.alone_child NEW.py REPORT STEPS
[ARGS...]` runs NEW.py as `__main__` and writes REPORT (JSON: steps taken, how it ended, the error that stopped it
and where in NEW.py). Nothing of the script is changed: the script's own `tf.function`s are wrapped so that after
each call the optimizers' iterations can be read, and it is stopped once they reach STEPS.
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback
from pathlib import Path

__all__ = ["main"]


class _Enough(BaseException):
    """Raised after a compiled call once STEPS steps are taken; a BaseException so `except Exception` lets it by."""


def _failure(exc: BaseException, script: str) -> tuple[str, str]:
    """(the error's one line, `line N: code` in the script): a traced function's error names the line inside it
    in its message ("in user code: ... File NEW.py, line N"), the rest by the traceback."""
    text = [line.strip() for line in str(exc).splitlines() if line.strip()]
    where = ""
    if text and text[0].startswith("in user code"):
        for i, line in enumerate(text):
            match = re.match(r'File "(.+)", line (\d+)', line)
            if match and match.group(1) == script:
                where = f"line {match.group(2)}: {text[i + 1][:120] if i + 1 < len(text) else ''}"
        text = text[-1:]
    if not where:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == script]
        where = f"line {frames[-1].lineno}: {(frames[-1].line or '').strip()[:120]}" if frames else ""
    message = text[0][:300] if text else ""
    return (message if message.startswith(type(exc).__name__) else f"{type(exc).__name__}: {message}"), where


def main(argv: list[str]) -> int:
    script, report, steps, args = str(Path(argv[0]).resolve()), Path(argv[1]), int(argv[2]), argv[3:]
    from tfcompare.core.files import write_atomic

    started = time.perf_counter()
    out = {"steps": 0, "error": "", "where": "", "ended": "stopped"}
    import runpy

    import tensorflow as tf

    from tfcompare.scripts.child.loaders import install as replace_loaders

    out["notes"] = []
    replace_loaders(out["notes"])  # a download (keras.datasets) is pair's synthetic data here too: no network

    optimizers: list = []

    def taken() -> int:
        counts = []
        for o in optimizers:
            try:
                counts.append(int(o.iterations.numpy()))
            except Exception:  # not built yet
                pass
        return max(counts, default=0)

    try:
        import keras
        from keras.src.optimizers.base_optimizer import BaseOptimizer

        build = BaseOptimizer.__init__

        def init(self, *a, **k):
            build(self, *a, **k)
            optimizers.append(self)

        BaseOptimizer.__init__ = init
        del keras
    except ImportError:
        pass

    original = tf.function

    class _Counted:
        def __init__(self, fn):
            self._fn = fn

        def __call__(self, *a, **k):
            value = self._fn(*a, **k)
            if tf.executing_eagerly() and steps and taken() >= steps:
                out["steps"] = taken()
                raise _Enough
            return value

        def __get__(self, instance, owner):  # a tf.function used as a method
            bound = self._fn.__get__(instance, owner)
            return _Counted(bound) if instance is not None else self

        def __getattr__(self, name):
            return getattr(self._fn, name)

    def function(func=None, *a, **k):
        if sys._getframe(1).f_code.co_filename != script:  # Keras's own functions stay as they are
            return original(func, *a, **k)
        if func is None:
            return lambda f: _Counted(original(f, *a, **k))
        return _Counted(original(func, *a, **k))

    tf.function = function
    sys.argv = [script, *args]
    sys.path.insert(0, str(Path(script).parent))
    try:
        runpy.run_path(script, run_name="__main__")
        out["ended"] = "finished"
    except _Enough:
        pass
    except SystemExit as exc:
        out["ended"] = "finished" if exc.code in (None, 0) else f"exit {exc.code}"
    except BaseException as exc:  # the script's own failure: named with its line in the script
        out["error"], out["where"] = _failure(exc, script)
        out["ended"] = "failed"
    out["steps"] = max(out["steps"], taken()) if optimizers else out["steps"]
    out["seconds"] = time.perf_counter() - started
    write_atomic(report, json.dumps(out))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
