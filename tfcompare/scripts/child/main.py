"""The process that runs one script of a pair: `python -m tfcompare.scripts.child.main SIDE SCRIPT FOLDER K DROPOUT
[ARGS]` (DROPOUT: `dropout.MODES`).

The TF2 side waits for the TF1 side's record (it needs TF1's initial weights and batches); both import
TensorFlow meanwhile. The record is written whatever happens (steps done, a crash with its traceback, a
refusal to pair); the parent reads it, and kills this process if it does not finish in time. The progress file
(`record.save_progress`) is written as the script starts and after each TF1 step: what the parent reads when
this process is killed (interrupt) or the script ends it (`os._exit`).
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from tfcompare.scripts.child.step_timing import cannot_time, take_turns
from tfcompare.scripts.child.user_script import as_tf1, compat_v1_modules, run_script

__all__ = ["main"]

_WAIT_FOR_TF1_S = 600.0  # the parent's own time limit ends this process first


def _user_traceback(exc: BaseException, script: str) -> str:
    """The traceback from the script's first frame on, without tfcompare's own frames (its probes wrap the
    script's Session.run and gradient calls): the user's code, then the library that raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    start = next((i for i, f in enumerate(frames) if f.filename == script), 0)
    ours = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
    frames = [f for f in frames[start:] if not f.filename.startswith(ours) or f.filename == script]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames),
             *traceback.format_exception_only(type(exc), exc)]
    return "".join(lines)


def _where(exc: BaseException, script: str) -> str:
    """` (SCRIPT line N)`: the script's line the exception came through, or ""."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == script]
    return f" ({os.path.basename(script)} line {lines[-1]})" if lines else ""


def _refuse_tf1_switches() -> None:
    """A TF2 script that switches eager execution off is a TF1 script: say so instead of failing later."""
    def refuse(*args, **kwargs):
        raise RuntimeError("the TF2 script switches TF2 behaviour off (disable_v2_behavior / disable_eager_execution):"
                           " it is a TF1 script; tfcompare pair takes the TF1 script first, then the TF2 one")

    for module in compat_v1_modules():
        module.disable_v2_behavior = module.disable_eager_execution = refuse


def _time_tf1(record, folder: Path, step) -> None:
    """TF1's K steps are recorded: the record is saved (the TF2 side starts from it), then the train op is timed
    in turns with the TF2 side, while the script's Session is still open."""
    from tfcompare.scripts.child.record import save

    record.status = "ok"
    save(record, folder)
    take_turns("tf1", folder, step)


def _seed(record) -> None:
    """A pair's two children seed NumPy's and Python's global generators alike before the scripts run, so data
    drawn without a seed is the same on both sides (a script's own seed replaces it); `run-tf1` does not."""
    seed = os.environ.pop("TFCOMPARE_PAIR_SEED", None)
    if seed is None:
        return
    import random

    import numpy as np

    np.random.seed(int(seed))
    random.seed(int(seed))
    if record.side == "tf2":
        _keras_seeds_apart(record, int(seed))
    if record.side == "tf1":
        record.notes.append(f"NumPy's and Python's global random generators were seeded with {seed} in both scripts' "
                            "processes before they ran (a script's own seed replaces it): unseeded data draws alike")


def _keras_seeds_apart(record, seed: int) -> None:
    """Keras 3 draws a seed from Python's global `random` for each unseeded initializer or dropout it makes, so a
    rewrite's data drawn with `random` (the cookbook's siamese addresses) came other than TF1's from the same seed:
    a false DIFFER on the inputs. Here Keras draws from a generator of its own; its seeds make nothing compared (the
    initial weights are TF1's on both sides, dropout masks are never compared), and the note says so."""
    import random

    try:
        from keras.src.random import seed_generator
    except ImportError:
        return

    class _Apart(random.Random):
        said = False

        def randint(self, a, b):
            if not self.said:
                self.said = True
                record.notes.append("Keras drew the seeds of its unseeded initializers and dropouts from a generator "
                                    "of pair's own, not from Python's global `random` as the TF2 script alone does: "
                                    "the script's own draws from `random` come as in TF1's process (the initial "
                                    "weights are TF1's on both sides)")
            return super().randint(a, b)

    seed_generator.python_random = _Apart(seed)


def main(argv: list[str]) -> int:
    side, script, folder, steps, mode, args = argv[0], str(Path(argv[1]).resolve()), Path(argv[2]), int(argv[3]), \
        argv[4], argv[5:]
    from tfcompare.scripts.child.processes import ended_text
    from tfcompare.scripts.child.record import SideRecord, load, save, save_progress
    from tfcompare.scripts.legacy import is_refusal

    record = SideRecord(side=side, script=script)
    timed = os.environ.pop("TFCOMPARE_PAIR_TIMING", "") == "1"
    import tensorflow as tf

    from tfcompare.scripts.child.loaders import install

    gpus = tf.config.list_physical_devices("GPU")
    record.device = f"GPU ({len(gpus)}: {', '.join(g.name for g in gpus)})" if gpus else "CPU"
    install(record.notes)
    started = time.perf_counter()
    if side == "tf1":
        from tfcompare.scripts.legacy import install as install_legacy
        from tfcompare.scripts.child import placement
        from tfcompare.scripts.child.probe_tf1 import Stop, TF1Probe

        install_legacy(script, record.notes)  # tf.contrib, tf.estimator: in this child only
        placement.install(script, record.notes, bool(gpus))
        probe = TF1Probe(record, steps, script, mode, progress=lambda: save_progress(record, folder))
        probe.install()
        if timed:
            probe.timing = lambda step: _time_tf1(record, folder, step)
        run = lambda: run_script(script, args, {}, lambda tree: record.notes.extend(as_tf1(tree)),  # noqa: E731
                                 own_modules_tf1=record.notes)
        finish = lambda: None  # noqa: E731
        scope = None
    else:
        from tfcompare.scripts.child.probe_tf1 import Stop
        from tfcompare.scripts.child.probe_tf2 import TF2Probe, wrap_steps

        deadline = time.monotonic() + _WAIT_FOR_TF1_S
        while (tf1 := load(folder, "tf1")) is None:
            if (folder / "tf1.failed").exists() or time.monotonic() > deadline:
                return 0
            time.sleep(0.05)
        if tf1.status != "ok" or not tf1.steps:
            return 0
        probe = TF2Probe(record, tf1, steps, script, mode)
        names = probe.install()
        if timed:
            probe.timing = lambda step, traces: take_turns("tf2", folder, step, traces=traces) if step is not None \
                else cannot_time(folder, "tf2", traces)
        _refuse_tf1_switches()
        wrapped: list[str] = []
        run = lambda: run_script(script, args, names, lambda tree: wrapped.extend(wrap_steps(tree)))  # noqa: E731
        finish = probe.finish
        scope = lambda: tf.variable_creator_scope(probe.creator)  # noqa: E731
        started = time.perf_counter()
    _seed(record)
    save_progress(record, folder)  # the script starts: from here on, an exit without a record is the script's
    try:
        if scope is not None:
            with scope():
                run()
        else:
            run()
    except Stop:
        pass
    except SystemExit as exc:
        if exc.code not in (None, 0) and not record.steps:
            code = exc.code if isinstance(exc.code, int) else repr(exc.code)
            record.status, record.error = "crashed", ended_text(f"the {side.upper()} script", code, 0)
    except BaseException as exc:  # the script's own failure: reported with its traceback
        if not record.steps:
            record.status = "crashed"
        record.error = f"{type(exc).__name__}: {exc}"
        if is_refusal(exc):  # the runtime's one-line refusal, not a crash: the name of tfcompare's class says nothing
            record.refused = True
            record.error = (str(exc) if isinstance(exc, AttributeError) else record.error) + _where(exc, script)
        record.traceback = _user_traceback(exc, script)
    try:
        if scope is not None:
            with scope():
                finish()
        else:
            finish()
    except BaseException as exc:
        record.notes.append(f"the probes after the steps failed: {type(exc).__name__}: {exc}")
    if record.status == "running":
        record.status = "ok" if record.steps else "no-step"
    record.seconds = time.perf_counter() - started
    if timed:  # the other side must not wait for a turn this side will never take
        cannot_time(folder, side, f"the {side.upper()} side ended without timing")
    save(record, folder)
    return 0


if __name__ == "__main__":
    _code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_code)  # the script's own threads (queue runners, tf.data) must not keep the process alive
