"""Causes that name the mistake, where the first loss already differs: what TF2's first loss would be under each
known mistake, computed from TF1's own logits, labels and regularisation term at the same weights and batch
(`child.loss_parts`), and named only when one of them gives TF2's loss to within rounding.

The candidates are computed with Keras's own loss functions (what a TF2 script calls), so "from_logits missing"
is Keras's exact arithmetic on logits taken as probabilities, not a look-alike.
"""

from __future__ import annotations

import warnings

import numpy as np

from tfcompare.scripts.child.record import SideRecord

__all__ = ["loss_causes"]

_RATIOS = {0.0: "TF2 adds no regularisation term", 0.5: "TF2's regularisation term is half TF1's",
           2.0: "TF2's regularisation term is twice TF1's (keras.regularizers.l2(c) adds c·Σw², TF1's "
                "c·tf.nn.l2_loss(w) adds c·Σw²/2: l2(c/2) is TF1's)"}
_SMOOTHING = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


def loss_causes(tf1: SideRecord, tf2: SideRecord) -> list[str]:
    """Sentences naming the mistake that turns TF1's first loss into TF2's; [] when none is known to."""
    if not (tf1.losses and tf2.losses) or tf1.reduction_ratio is None:
        return []
    one, two = tf1.losses[0], tf2.losses[0]
    tol = 2e-5 * max(abs(one), abs(two), 1e-3)
    reg = float(tf1.arrays["cause/regularisation"]) if "cause/regularisation" in tf1.arrays else 0.0
    out = []
    if reg > 0:
        for ratio, text in _RATIOS.items():
            if abs(one + (ratio - 1) * reg - two) <= tol:
                out.append(f"{text} (TF1's term is {reg:.4g} of its first loss {one:.6g}; TF2's first loss "
                           f"{two:.6g} is TF1's with the term x{ratio:g})")
                return out
    if tf1.cross_entropy and "cause/logits" in tf1.arrays:
        with warnings.catch_warnings():  # Keras warns of the softmax-twice candidate: it is computed on purpose
            warnings.simplefilter("ignore", UserWarning)
            out += _cross_entropy(tf1, one - reg, two - reg, tol)
    return out


def _cross_entropy(tf1: SideRecord, data_loss: float, two: float, tol: float) -> list[str]:
    import keras

    logits = np.asarray(tf1.arrays["cause/logits"], np.float32)
    labels = np.asarray(tf1.arrays["cause/labels"])
    if logits.ndim != 2:
        return []
    classes = logits.shape[1]
    onehot = np.eye(classes, dtype=np.float32)[labels.astype(np.int64)] if tf1.cross_entropy == "sparse" else \
        labels.astype(np.float32)

    def mean(values) -> float:
        return float(np.mean(np.asarray(values, np.float64)))

    ce = mean(keras.losses.categorical_crossentropy(onehot, logits, from_logits=True))
    if abs(ce - data_loss) > tol:
        return []  # TF1's loss is more than a mean cross-entropy of these logits: nothing to reason from
    hard = np.all((onehot == 0) | (onehot == 1))
    candidates = [("logits taken as probabilities: TF2's cross-entropy has from_logits=False (the Keras default) "
                   "on a model without a softmax; TF1's softmax_cross_entropy_with_logits takes logits: "
                   "from_logits=True", mean(keras.losses.categorical_crossentropy(onehot, logits))),
                  ("a softmax applied twice: TF2's model ends in a softmax and its loss has from_logits=True",
                   mean(keras.losses.categorical_crossentropy(onehot, keras.ops.softmax(logits), from_logits=True))),
                  ("the softmax over the other axis (the batch, axis 0) in TF2",
                   mean(-np.sum(onehot * np.asarray(keras.ops.log_softmax(logits, axis=0)), axis=1)))]
    if hard:
        uniform = mean(-np.mean(np.asarray(keras.ops.log_softmax(logits, axis=1)), axis=1))
        if uniform != ce:
            eps = (two - ce) / (uniform - ce)
            near = min(_SMOOTHING, key=lambda e: abs(e - eps))
            smoothed = mean(keras.losses.categorical_crossentropy(onehot, logits, from_logits=True,
                                                                  label_smoothing=near))
            candidates.append((f"label smoothing {near:g} in TF2 (TF1's labels are one-hot: none)", smoothed))
    else:
        eps = float(classes * onehot.min())
        if eps > 0:
            hard_labels = np.eye(classes, dtype=np.float32)[np.argmax(onehot, axis=1)]
            candidates.append((f"label smoothing {eps:.3g} in TF1 (its labels reach the cross-entropy smoothed), "
                               "none in TF2",
                               mean(keras.losses.categorical_crossentropy(hard_labels, logits, from_logits=True))))
    return [f"the loss: {text} (TF2's first loss {two:.6g} is what that gives on TF1's logits, to rounding)"
            for text, value in candidates if abs(value - two) <= tol]
