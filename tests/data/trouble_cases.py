"""Cases that go wrong on purpose, for the reliability tests: each shares user_cases' TF1 graph.

`trouble-hang` blocks forever inside a `tf.py_function` in every TF2 mode (a step that never returns);
`trouble-slow` sleeps 0.3 s per TF2 step in Python user code (time to interrupt it there);
`trouble-nan` and `trouble-wide` disagree with TF1 by NaN and by output shape; `trouble-setup` raises in
`init_weights`; `trouble-raises` raises inside the traced step, on a known line.
"""

import threading
import time

import numpy as np
import tensorflow as tf

from tfcompare import Case, InputSpec
from user_cases import Regression, _batch, _graph, _weights

_NEVER = threading.Event()


class Hangs(Regression):
    def train_step(self, inputs):
        tf.py_function(lambda: _NEVER.wait(), [], [])  # waits on an event nobody sets
        return super().train_step(inputs)


class Slow(Regression):
    def train_step(self, inputs):
        tf.py_function(lambda: time.sleep(0.3), [], [])
        return super().train_step(inputs)


class NaNOutput(Regression):
    def __call__(self, inputs):
        return super().__call__(inputs) * np.nan


class WideOutput(Regression):
    def __call__(self, inputs):
        return tf.concat([super().__call__(inputs)] * 2, axis=1)


class Raises(Regression):
    def train_step(self, inputs):
        raise ValueError("the user's own error")  # the error row must name this line (45)


class ReturnsNone(Regression):
    def train_step(self, inputs):
        super().train_step(inputs)  # forgets to return the loss


def _batch_with_label(rng, n):
    return dict(_batch(rng, n), label=np.zeros((n,), np.int32))  # a TF2-only key TF1 declares no placeholder for


def _broken_weights(rng):
    raise RuntimeError("init_weights broke")


_INPUTS = (InputSpec("x", (4,)), InputSpec("y", (1,)))
CASES = [
    Case("trouble-hang", "blocks forever in every TF2 mode", _INPUTS, _weights, _batch, _graph, Hangs, 8),
    Case("trouble-slow", "sleeps 0.3 s per TF2 step", _INPUTS, _weights, _batch, _graph, Slow, 8),
    Case("trouble-nan", "NaN output", _INPUTS, _weights, _batch, _graph, NaNOutput, 8),
    Case("trouble-wide", "output twice as wide", _INPUTS, _weights, _batch, _graph, WideOutput, 8),
    Case("trouble-setup", "init_weights raises", _INPUTS, _broken_weights, _batch, _graph, Regression, 8),
    Case("trouble-raises", "raises inside the step", _INPUTS, _weights, _batch, _graph, Raises, 8),
    Case("trouble-ok", "a good case after the bad ones", _INPUTS, _weights, _batch, _graph, Regression, 8),
    Case("trouble-none", "train_step returns None", _INPUTS, _weights, _batch, _graph, ReturnsNone, 8),
    Case("trouble-label", "a batch key with no TF1 placeholder", _INPUTS, _weights, _batch_with_label, _graph,
         Regression, 8),
]


import functools  # noqa: E402  (here: the line numbers above are asserted)


# `trouble-diverges`: NaN/inf in every mode alike, the TF1 graph too (they agree, and it is still not ok)
class Diverges(Regression):
    learning_rate = 1e30


CASES.append(Case("trouble-diverges", "a learning rate of 1e30 on both sides", _INPUTS, _weights, _batch,
                  functools.partial(_graph, learning_rate=Diverges.learning_rate), Diverges, 8))
