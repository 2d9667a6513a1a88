"""The TF2 probe after the steps: the last weights, the optimizer, and the loss-reduction and forward-op probes.

Once the script has stopped, the step is called again (its own function, or Keras's `train_step`) with its
batch, and with its batch doubled, each call ending at its gradient: the ratio of the two losses says how the
loss reduces over the batch. Traced once more as a graph, the ops under its loss are counted. Every variable is
put back afterwards.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.core.gradient_transforms import keras_transform
from tfcompare.core.optimizer_replay import tf2_optimizer
from tfcompare.core.schedules import is_schedule, keras_text
from tfcompare.scripts.child.tf2_inputs import _is_batch
from tfcompare.scripts.child.tf2_tape import _Probe

__all__ = ["AfterSteps"]


class AfterSteps:
    """`TF2Probe`'s part that runs after the script: `finish()`."""

    def finish(self) -> None:
        """The last step's weights (if the script ended first), the reduction and op-trace probes, the optimizer."""
        rec = self.record
        self.finishing = False  # the probes below take gradients of their own
        if rec.steps:
            self._take_after()
        if self.optimizer is not None:
            side = tf2_optimizer(self.optimizer)
            if side is not None:
                rec.optimizer = {"source": side.source, "kind": side.kind, "settings": side.settings,
                                 "extras": side.extras}
                rec.gradient_transform = keras_transform(side.extras)
                rate = side.settings.get("learning_rate")
                rec.schedule = "" if rate is None else "constant" if not is_schedule(rate) else keras_text(rate)
            try:
                import keras
                rec.optimizer_config = keras.optimizers.serialize(self.optimizer)
            except Exception:
                pass
        if rec.gradient_transform["kind"] == "none" and self.applied is not None:
            rec.gradient_transform = self.applied  # clipped by hand between the tape and apply_gradients
        if rec.steps and self.step_fn is None and self.fit_model is None and not self.calls:
            rec.substitution.append("TF2's step inputs were not replaced: its gradient is taken outside a function "
                                    "(inline in a loop), so both scripts must read the same data")
        if self.draws is not None:
            rec.draws_given, rec.draws_unmatched = self.draws.given, self.draws.missing()
            self.draws.set_step(0)  # the probes below read the first step's batch (TF1's: with its draws)
        if not rec.steps:
            return
        if self.step_args is None:
            rec.reduction_note = "the gradient is taken outside any function tfcompare can call again"
            rec.ops_note = "no step function to trace"
            return
        saved = self._save_all()
        try:
            self._probe_reduction(self.step_args)
            self._probe_ops(self.step_args)
        finally:
            self._restore_all(saved)
        self._inference_pass()
        self._replay_traced()
        self._time_step()

    def _call_for_probe(self, args):
        """One call of the step (or Keras's train_step) that ends at its gradient."""
        if self.fit_model is not None:
            return self.fit_model.train_step(args)
        fn = getattr(self.step_fn, "python_function", self.step_fn)
        call_args, call_kwargs = args
        return fn(*call_args, **call_kwargs)

    def _probe_reduction(self, args) -> None:
        rec = self.record

        def doubled(leaf):
            if not _is_batch(leaf):
                return leaf
            out = np.concatenate([np.asarray(leaf)] * 2)
            return out if isinstance(leaf, np.ndarray) else tf.constant(out)

        if not any(_is_batch(leaf) for leaf in tf.nest.flatten(args)):
            rec.reduction_note = "no batch in the step's arguments (one example of rank-0 values)"
            return
        try:
            once = self._probe("loss", args)
            twice = self._probe("loss", tf.nest.map_structure(doubled, args))
            rec.reduction_ratio = twice / once if once else None
        except Exception as exc:
            rec.reduction_note = f"the batch cannot be doubled: {str(exc).splitlines()[0][:160]}"

    def _probe_ops(self, args) -> None:
        rec = self.record
        tf.config.run_functions_eagerly(False)
        try:
            traced = tf.function(lambda a: self._call_for_probe(a))
            self._probe("ops", args, lambda a: traced.get_concrete_function(a))
            rec.ops, rec.windows = self.probed, self.probed_windows
            added = len(getattr(self.fit_model, "losses", None) or [])  # kernel_regularizer / add_loss terms
            if added:
                rec.ops["regularisation (Keras layer losses)"] = added
        except Exception as exc:
            rec.ops_note = f"the step could not be traced: {str(exc).splitlines()[0][:160]}"
        finally:
            tf.config.run_functions_eagerly(True)

    def _probe(self, mode, args, call=None):
        self.mode, self.probed = mode, None
        try:
            (call or self._call_for_probe)(args)
        except _Probe:
            return self.probed
        finally:
            self.mode = "normal"
        raise RuntimeError("the step took no gradient")
