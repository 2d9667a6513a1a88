"""Built-in retracing scenarios for `tfcompare audit --scenario NAME`: the patterns users trip over.

Each scenario builds its own `tf.function`s (so running it twice starts from empty trace caches)
and declares how many traces it must produce; the tests assert exactly that.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import tensorflow as tf

__all__ = ["Scenario", "SCENARIOS", "LENGTHS"]

LENGTHS = (7, 13, 20, 31, 7, 13, 20, 31)  # sequence lengths of the batches fed in order: 4 distinct
_FEATURES = 8


def _batches():
    rng = np.random.default_rng(0)
    return [tf.constant(rng.standard_normal((4, n, _FEATURES)).astype(np.float32)) for n in LENGTHS]


def _encode(x):
    return tf.reduce_mean(tf.tanh(x * 0.5), axis=1)


def variable_lengths():
    """Padded-free variable-length batches into a tf.function with no signature: one trace per length."""
    step = tf.function(_encode)
    for x in _batches():
        step(x)


def none_signature():
    """The same stream with `None` on the varying dims of an input_signature: one trace."""
    step = tf.function(_encode, input_signature=[tf.TensorSpec([None, None, _FEATURES], tf.float32)])
    for x in _batches():
        step(x)


def reduce_retracing():
    """The same stream with reduce_retracing=True: the second shape is traced generalised, then reused."""
    step = tf.function(_encode, reduce_retracing=True)
    for x in _batches():
        step(x)


def _scaled(x, step):
    return x * tf.cast(step, x.dtype)


def python_step_counter():
    """A Python int loop counter passed every call: one trace per value."""
    fn = tf.function(_scaled)
    x = tf.ones([4])
    for step in range(10):
        fn(x, step)


def _double(x):
    return x * 2.0


def new_function_per_iteration():
    """A new tf.function (as a new model per iteration would make) created inside the loop."""
    x = tf.ones([4])
    for _ in range(5):
        tf.function(_double)(x)


def _dropout_like(x, training):
    if training:
        return x * 0.5
    return x


def training_flag():
    """A Python bool `training` flag: two traces, one per value, which is expected."""
    fn = tf.function(_dropout_like)
    x = tf.ones([4])
    for i in range(6):
        fn(x, training=i % 2 == 0)


@dataclasses.dataclass(frozen=True)
class Scenario:
    run: Callable[[], None]
    function: str  # the qualified name of the function whose traces are expected
    traces: int
    cause: str | None  # the cause every avoidable retrace has, None when there is no retrace
    description: str


SCENARIOS: dict[str, Scenario] = {
    "variable-lengths": Scenario(variable_lengths, "_encode", 4, "shape_changed",
                                 "variable-length batches, no input_signature"),
    "none-signature": Scenario(none_signature, "_encode", 1, None,
                               "variable-length batches, input_signature with None dims"),
    "reduce-retracing": Scenario(reduce_retracing, "_encode", 2, "shape_changed",
                                 "variable-length batches, reduce_retracing=True"),
    "python-step-counter": Scenario(python_step_counter, "_scaled", 10, "python_value_changed",
                                    "a Python int step counter passed every call"),
    "new-function-per-iteration": Scenario(new_function_per_iteration, "_double", 5, "function_recreated",
                                           "a new tf.function created in every iteration"),
    "training-flag": Scenario(training_flag, "_dropout_like", 2, "python_value_changed",
                              "a Python bool training flag (expected, harmless)"),
}
