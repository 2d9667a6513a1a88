"""What numeric checking costs: each TF2 mode's step time with and without `enable_check_numerics`, interleaved.

Eager checking is a callback on every op, switched on for exactly the checked blocks; a `tf.function` traced with
checking on carries a check op after every op in its graph. XLA cannot compile the checks, and a TF1 Session's
checks (`add_check_numerics_ops`) are built into the graph, so those two modes are not measured.
"""

from __future__ import annotations

import tensorflow as tf

from tfcompare.core.modes import MODES
from tfcompare.core.runners import make_runner
from tfcompare.core.timing import Timer, interleave

__all__ = ["MEASURED", "check_overhead"]

MEASURED = ("tf2-eager", "tf2-function")
_CHECKED = "+checks"


def check_overhead(case, weights, batch, modes, session_config, rounds: int = 7,
                   timer: Timer | None = None) -> list[dict]:
    """Per measured mode: median step time plain and checked, their ratio, and whether either was noisy."""
    timer = timer or Timer()
    timed, runners = {}, []
    try:
        for mode in (m for m in modes if m in MEASURED):
            plain = make_runner(mode, MODES[mode], case, weights, session_config)
            plain.build()
            plain.first_call(batch)
            tf.debugging.enable_check_numerics()
            try:
                checked = make_runner(mode, MODES[mode], case, weights, session_config)
                checked.build()
                checked.first_call(batch)
            finally:
                tf.debugging.disable_check_numerics()
            runners += [plain, checked]
            timed[mode], timed[mode + _CHECKED] = plain.timed(batch, 1), checked.timed(batch, 1)

        def switch(name: str) -> None:  # checking on for the checked blocks only (eager's callback)
            if name.endswith(_CHECKED):
                tf.debugging.enable_check_numerics()
            else:
                tf.debugging.disable_check_numerics()

        measured = interleave(timer, timed, rounds, on_block=switch)
    finally:
        tf.debugging.disable_check_numerics()
        for runner in runners:
            runner.close()
    out = []
    for mode in (m for m in timed if not m.endswith(_CHECKED)):
        plain, checked = measured.get(mode), measured.get(mode + _CHECKED)
        if plain is None or checked is None:
            continue
        out.append({"mode": mode, "plain_s": plain.median, "checked_s": checked.median,
                    "ratio": checked.median / plain.median, "noisy": plain.noisy or checked.noisy})
    return out
