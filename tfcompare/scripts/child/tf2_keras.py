"""The TF2 probe's Keras part: the optimizer's `apply`, `Model.fit`, and the dropouts the first step calls.

`apply` (what `apply_gradients` and `fit` call) ends a step: the weights after it are read, and after K steps
the script is stopped. `fit` runs one epoch on TF1's batches (validation dropped, no shuffling). Each Keras
Dropout layer and `tf.nn.dropout` the first step calls is recorded; with dropout switched off, each replaced
call is counted.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import record as _tape

from tfcompare.core.gradient_transforms import GLOBAL_NORM, NORM, UNSEEN, VALUE, inferred_transform, none
from tfcompare.scripts.child import slots
from tfcompare.scripts.child.probe_tf1 import Stop

__all__ = ["KerasObserver"]


def _uses_tf_keras(script: str) -> bool:
    """tf.keras is tf-keras (Keras 2) in this process, or the script imports tf_keras itself."""
    import os

    if os.environ.get("TF_USE_LEGACY_KERAS", "").lower() in ("1", "true", "yes"):
        return True
    try:
        with open(script, encoding="utf-8", errors="replace") as f:
            return "tf_keras" in f.read()
    except OSError:
        return False


class KerasObserver:
    """`TF2Probe`'s part that patches Keras: the optimizer, `fit`, and dropout."""

    def _install_keras(self) -> None:
        try:
            import keras
            from keras.src.optimizers.base_optimizer import BaseOptimizer
        except ImportError:
            return
        probe = self
        apply, fit = BaseOptimizer.apply, keras.Model.fit

        def apply_patched(optimizer, grads, trainable_variables=None):
            if not probe.busy and probe.mode == "normal" and probe.record.steps:
                probe._take_rate(optimizer)
                probe._take_applied(grads, trainable_variables)
            out = apply(optimizer, grads, trainable_variables)
            if not probe.busy and probe.mode == "normal" and probe.record.steps:
                probe._applied_by(optimizer)
                probe._take_after_apply(trainable_variables)
                probe.applies += 1
                # inside the script's step function the rest of the step runs first (tf2_step_wrapper stops it)
                probe._stop_after_apply()
            return out

        def fit_patched(model, x=None, y=None, batch_size=None, epochs=1, **kwargs):
            x2, y2, size2 = probe._fit_inputs(x, y, batch_size, kwargs)
            probe.fit_model = model
            if x2 is x:  # not substituted
                return fit(model, x, y, batch_size=batch_size, epochs=1, **kwargs)
            own = dict(kwargs, batch_size=batch_size, epochs=1, steps_per_epoch=1)
            return probe._first_call(lambda a, k: fit(model, *a, **k), ((x2, y2), dict(kwargs, batch_size=size2,
                                                                                          epochs=1)), ((x, y), own))

        BaseOptimizer.apply, keras.Model.fit = apply_patched, fit_patched
        self._install_dropout(keras)
        self._install_activations(keras)
        if _uses_tf_keras(self.script):
            self._install_tf_keras()

    def _install_tf_keras(self) -> None:
        """tf.keras 2.x (tf-keras, `TF_USE_LEGACY_KERAS=1`, the TF2 code of 2020-2023): its optimizers, the
        current and the legacy (`optimizer_v2`), end a step in `apply_gradients`; its `fit` gets TF1's batches."""
        try:
            import tf_keras
            from tf_keras.src.optimizers import optimizer as current
            from tf_keras.src.optimizers.legacy import optimizer_v2 as legacy
        except ImportError:
            return
        probe = self

        def patched(original):
            def apply_gradients(optimizer, grads_and_vars, *args, **kwargs):
                pairs = list(grads_and_vars)
                observed = not probe.busy and probe.mode == "normal" and probe.record.steps
                if observed:
                    probe._take_rate(optimizer)
                    probe._take_applied([g for g, _ in pairs], [v for _, v in pairs])
                out = original(optimizer, pairs, *args, **kwargs)
                if observed:
                    probe._applied_by(optimizer)
                    probe._take_after_apply([v for _, v in pairs])
                    probe.applies += 1
                    probe._stop_after_apply()
                return out
            return apply_gradients

        fit = tf_keras.Model.fit

        def fit_patched(model, x=None, y=None, batch_size=None, epochs=1, **kwargs):
            x2, y2, size2 = probe._fit_inputs(x, y, batch_size, kwargs)
            probe.fit_model = model
            if x2 is x:
                return fit(model, x, y, batch_size=batch_size, epochs=1, **kwargs)
            own = dict(kwargs, batch_size=batch_size, epochs=1, steps_per_epoch=1)
            return probe._first_call(lambda a, k: fit(model, *a, **k), ((x2, y2), dict(kwargs, batch_size=size2,
                                                                                          epochs=1)), ((x, y), own))

        for cls in (current.Optimizer, legacy.OptimizerV2):
            cls.apply_gradients = patched(cls.apply_gradients)
        tf_keras.Model.fit = fit_patched

    def _stop_after_apply(self) -> None:
        """After K steps: stop here, unless inside the script's step function (the rest of the step runs first,
        `tf2_step_wrapper` stops it) or an earlier step's update is still to come (`finishing`)."""
        if (self.record.steps >= self.steps or self.unpaired) and (not self.in_step or self.finishing) \
                and not self._awaiting():
            raise Stop

    def _take_applied(self, grads, variables) -> None:
        """The first step's gradients as given to the optimizer: a script that clips them by hand between the
        tape and `apply_gradients` has a transform the optimizer's settings do not show."""
        if self.record.steps != 1 or self.applied is not None or variables is None:
            return
        grads, keys = list(grads), [self._key(v) for v in variables]
        recorded = [(self.record.arrays.get(f"grad/0/{k}"), g) for k, g in zip(keys, grads)
                    if k is not None and g is not None]
        if recorded and all(r is not None for r, _ in recorded):
            self.busy = True
            try:
                given = [np.asarray(tf.convert_to_tensor(g)) for _, g in recorded]
                # NaN is never equal to itself: a non-finite gradient tells no transform (the settings still do)
                if all(np.all(np.isfinite(a)) for a in [*(r for r, _ in recorded), *given]):
                    self.applied = inferred_transform([r for r, _ in recorded], given)
            except Exception:  # sparse or odd gradients: the transform stays unseen
                self.applied = none()
            finally:
                self.busy = False
        if self.clip_called is not None and (self.applied is None or self.applied["source"] == UNSEEN):
            self.applied = self.clip_called  # it cut nothing, but the script called it: what it would do is known

    def _install_clip_calls(self) -> None:
        """A TF2 script's own `tf.clip_by_global_norm` / `clip_by_norm` / `clip_by_value` between the tape and
        `apply_gradients` in the first step: the setting it clips at, seen even when it cuts nothing."""
        probe = self

        def watched(original, kind, name, params):
            def clip(t, *args, **kwargs):
                out = original(t, *args, **kwargs)
                if not probe.busy and probe.mode == "normal" and probe.record.steps == 1 and probe.clip_called is None:
                    given = dict(zip(params, args), **{k: v for k, v in kwargs.items() if k in params})
                    try:
                        value = float(np.asarray(given[params[-1]]))
                        if kind == VALUE and not np.isclose(float(np.asarray(given[params[0]])), -value):
                            value = None  # an asymmetric range is not Keras's clipvalue
                    except Exception:  # a bound given otherwise, or not a number
                        value = None
                    if value is not None:
                        probe.clip_called = {"kind": kind, "value": value,
                                             "source": f"{name}(..., {value:g}) (by hand)"}
                return out
            return clip

        for kind, name, params in ((GLOBAL_NORM, "clip_by_global_norm", ("clip_norm",)),
                                   (NORM, "clip_by_norm", ("clip_norm",)),
                                   (VALUE, "clip_by_value", ("clip_value_min", "clip_value_max"))):
            setattr(tf, name, watched(getattr(tf, name), kind, f"tf.{name}", params))

    def _applied_by(self, optimizer) -> None:
        """The optimizer of this step: the first one's settings are compared with TF1's first train op's; each
        one's slots are read (a GAN's discriminator and generator have one each)."""
        if self.optimizer is None:
            self.optimizer = optimizer
        if all(o is not optimizer for o in self.optimizers):
            self.optimizers.append(optimizer)
        self.record.step_ops.append(next(i for i, o in enumerate(self.optimizers) if o is optimizer))

    def _take_rate(self, optimizer) -> None:
        """The learning rate this step's update uses (a schedule's at the optimizer's iterations, before they
        count this step); a step applied otherwise stays None."""
        rates, step = self.record.learning_rates, self.record.steps - 1
        if len(rates) > step:
            return
        counter = slots.tf2_counter(optimizer) if step == 0 else None
        if counter is not None and (value := slots.counter_value(counter)) is not None:
            self.record.arrays["counter/init"] = value  # the step counter before the first update counts it
        rates.extend([None] * (step - len(rates)))
        try:
            # tf.keras 2.x's legacy optimizers hold a schedule in `learning_rate`; `_decayed_lr` is its value now
            rate = optimizer._decayed_lr(tf.float32) if hasattr(optimizer, "_decayed_lr") else optimizer.learning_rate
            rates.append(float(np.asarray(rate)))
        except Exception:  # an optimizer of the script's own
            rates.append(None)

    def _count_replaced(self, out) -> None:
        """A replaced dropout call of the first training step (of each optimizer's first, where TF1's steps run
        several): under a recording GradientTape (an evaluation before it is not counted, nor a call on symbolic
        tensors: Keras building a model by calling it on placeholders)."""
        k, ops = self.record.steps, self.tf1.step_ops
        first = k == 0 or (k < len(ops) and ops[k] not in ops[:k])
        if not self.busy and self.mode == "normal" and first and tf.executing_eagerly() \
                and not tf.is_symbolic_tensor(out) and _tape.could_possibly_record():
            self.record.dropout_replaced += 1

    def _install_dropout(self, keras) -> None:
        """Each dropout the first step calls: a Keras Dropout layer (its rate, and whether it trains) or
        tf.nn.dropout (its rate)."""
        probe = self
        layer_call, nn_dropout = keras.layers.Dropout.call, tf.nn.dropout

        def seen(rate, how, live):
            found = {"rate": rate, "how": how, "live": live}
            first = not probe.busy and probe.mode == "normal" and not probe.record.steps
            if first and found not in probe.record.dropout:
                probe.record.dropout.append(found)

        def call(layer, inputs, training=False):
            seen(float(layer.rate), f"keras Dropout(rate={layer.rate:g}) called with training={bool(training)}",
                 bool(training) and layer.rate > 0)
            return layer_call(layer, inputs, training=training)

        def dropout(x, rate=None, *args, **kwargs):
            try:
                value = float(np.max(np.asarray(rate)))
            except Exception:  # a symbolic rate, in a traced function
                value = None
            seen(value, f"tf.nn.dropout(rate={value if value is not None else '?'})", value is None or value > 0)
            return nn_dropout(x, rate, *args, **kwargs)

        keras.layers.Dropout.call, tf.nn.dropout = call, dropout
