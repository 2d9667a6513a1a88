"""Where TF1's optimizer and Keras 3's of the same name compute different updates with every setting equal.

No setting removes these (checked against Keras 3's source, keras/src/optimizers). Kept apart from the replay
(`optimizer_replay`, which needs TensorFlow) so that `pair` can name one without importing TensorFlow.
"""

from __future__ import annotations

__all__ = ["FORMULAS", "formula"]

FORMULAS = {
    "rmsprop": "TF1's mean-square slot starts at 1.0, Keras's at 0",
    "adagrad": "Keras adds its epsilon inside the root (sqrt(acc + epsilon)); TF1 adds none",
}

# only where the learning rate changes from step to step (a schedule): with a constant rate both are the same
_MOMENTUM_SCHEDULED = ("TF1's MomentumOptimizer scales the gradients it accumulated by each step's learning rate "
                       "(w -= lr_t x a_t), Keras's SGD accumulates each gradient already scaled by its own step's "
                       "rate (m_t = momentum x m_(t-1) - lr_t x g_t): with a rate that changes, the updates part from "
                       "the second step")


def formula(kind: str, rates=()) -> str | None:
    """Where TF1's `kind` and Keras's compute otherwise with every setting equal, for the learning rates TF1's
    steps used (None where not read), or None."""
    if kind in FORMULAS:
        return FORMULAS[kind]
    known = [r for r in rates or () if r is not None]
    if kind == "momentum" and len(set(known)) > 1:
        return _MOMENTUM_SCHEDULED
    return None
