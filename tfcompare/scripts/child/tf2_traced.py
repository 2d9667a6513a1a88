"""The TF2 steps again, as the script runs them: its `tf.function` traced, not eagerly.

The compared steps ran eagerly so that every step could be read inside (`run_functions_eagerly`); a step that
fails or computes otherwise only when traced (a Python side effect, a shape or dtype that only a trace fixes,
`jit_compile`) would pass that comparison. So after the script has stopped, every variable it made (model,
optimizer slots, step counters) is put back to its value at creation, and the script's own step function is
called traced on the same K batches of TF1; the weights after each call are recorded (`traced/after/<k>/<key>`,
k the last step the call took: `traced_at`) and compared with TF1's like the eager ones. Then every variable is
put back where the script left it.
"""

from __future__ import annotations

import time

import numpy as np
import tensorflow as tf

__all__ = ["TracedReplay"]


class TracedReplay:
    """`TF2Probe`'s part that replays the steps traced (`_replay_traced`, from `finish`)."""

    def _replay_traced(self) -> None:
        rec = self.record
        # each call's steps: a call that took two (a GAN's both networks) is compared after its second; one the
        # script was stopped inside (its steps not all recorded) is not replayed
        spans = [self.call_steps.get(i) for i in range(len(self.step_calls))]
        done = [i for i, span in enumerate(spans) if span and span[0] < span[1] <= min(rec.steps, self.tf1.steps)]
        fn, calls = self.step_fn, self.step_calls[:done[-1] + 1] if done else []
        if fn is None or self.fit_model is not None or not calls or self.unpaired:
            return
        if not all(hasattr(f, "get_concrete_function") for f, _, _ in calls):
            rec.traced_note = "the step is a plain Python function: it runs eagerly as written, as compared"
            return
        if any(d["live"] for d in rec.dropout):
            rec.traced_note = "not replayed traced: a live dropout draws other masks in another run"
            return
        saved = self._save_all()
        self.busy = True
        tf.config.run_functions_eagerly(False)
        try:
            for var, value in self.initial_values:
                var.assign(value)
            for k, (step, args, kwargs) in enumerate(calls):
                if self.draws is not None:
                    self.draws.set_step(spans[k][0] if spans[k] else k)
                began = time.perf_counter()
                step(*args, **kwargs)
                if not k:  # its trace (and XLA's compile, with jit_compile) and its run
                    rec.first_call_s = time.perf_counter() - began
                if k not in done:
                    continue
                for key, var in self.variables.items():
                    if key in self.pairs:
                        rec.arrays[f"traced/after/{spans[k][1] - 1}/{key}"] = np.asarray(var.numpy())
                rec.traced_at.append(spans[k][1] - 1)
            rec.traced_steps = len(rec.traced_at)
        except Exception as exc:  # the script's step, traced: its own failure, said as such
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            rec.traced_error = f"{type(exc).__name__}: {first}"
        finally:
            tf.config.run_functions_eagerly(True)
            self.busy = False
            self._restore_all(saved)

    def _time_step(self) -> None:
        """In a timed pair: the step traced on TF1's first batch, in turns with TF1 (`step_timing`)."""
        if self.timing is None:
            return
        fn, calls = self.step_fn, self.step_calls
        why = ("the TF2 step is Keras's fit: not timed" if self.fit_model is not None else
               "no traced step function to time" if fn is None or not calls or not hasattr(fn, "get_concrete_function")
               else "the traced step failed" if self.record.traced_error else "")
        if why:
            self.timing(None, why)
            return
        _, args, kwargs = calls[0]

        def step():
            out = fn(*args, **kwargs)
            return [np.asarray(t) for t in tf.nest.flatten(out) if hasattr(t, "numpy")]  # on the host

        count = getattr(fn, "experimental_get_tracing_count", None)
        if self.draws is not None:
            self.draws.set_step(0)  # TF1's first batch, with its draws
        self.busy = True
        tf.config.run_functions_eagerly(False)
        try:
            self.timing(step, count)
        finally:
            tf.config.run_functions_eagerly(True)
            self.busy = False
