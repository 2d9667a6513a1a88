"""Where TF1's optimizer and Keras 3's of the same name compute different updates with every setting equal.

No setting removes these (checked against Keras 3's source, keras/src/optimizers). Kept apart from the replay
(`optimizer_replay`, which needs TensorFlow) so that `pair` can name one without importing TensorFlow.
"""

from __future__ import annotations

__all__ = ["FORMULAS"]

FORMULAS = {
    "rmsprop": "TF1's mean-square slot starts at 1.0, Keras's at 0",
    "adagrad": "Keras adds its epsilon inside the root (sqrt(acc + epsilon)); TF1 adds none",
}
