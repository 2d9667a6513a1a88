"""One forward pass in inference mode on each side, so that eval-mode mistakes show.

The steps compare training mode only; what a model computes at inference (a batch norm's moving statistics, a
dropout switched off, a layer whose training flag is hard-coded) is another program. After the first step, at
the weights and state it left, each side's loss on the first batch is read in inference mode:

- TF1: the batch fed with its switches turned to inference: a `keep_prob` placeholder fed 1 (a fed dropout rate
  fed 0), a scalar bool placeholder fed True (`is_training`) fed False. A graph without a switch defines no
  inference mode: nothing is compared. A read that changes state (a loss built under `control_dependencies(UPDATE_OPS)`) is undone.
- TF2 (`InferencePass`): the step's loss probe with Keras's outermost layer call made `training=False` (inner
  calls keep what the script wrote, so a hard-coded `training=True` inside a model stays and shows), and its
  scalar bool arguments that are True made False where TF1 turned as many `is_training` placeholders False (a
  rewrite's own flag, `train_step(x, y, True)`, which no Keras call sets: read as True, it was a false DIFFER).
"""

from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["tf1_inference_feed", "InferencePass", "inference", "KERAS_HOW"]


def tf1_inference_feed(run, sess, feed: dict, forward) -> tuple[dict | None, str, int]:
    """(the feed in inference mode, what was switched, how many bool placeholders were turned False), or (None, why
    TF1's inference mode cannot be chosen, 0)."""
    from tfcompare.core.graphs import ancestors

    out, said = dict(feed), []
    masks = [op for op in forward if op.type == "GreaterEqual" and op.inputs[0].op.type == "RandomUniform"]
    for op in masks:
        fed = [a for a in ancestors([op.inputs[1]]) if a.type == "Placeholder" and a.outputs[0] in feed]
        if not fed:
            if float(np.max(run(sess, op.inputs[1], feed))) > 0:
                return None, "a dropout's rate is set, not fed: TF1's inference mode cannot be chosen", 0
            continue
        placeholder = fed[0].outputs[0]
        value = float(np.asarray(feed[placeholder]).reshape(-1)[0])
        rate = float(np.max(run(sess, op.inputs[1], feed)))
        new = 1.0 if abs(rate - (1 - value)) < 1e-6 else 0.0  # keep_prob fed 1, a rate fed 0
        out[placeholder] = np.asarray(new, np.asarray(feed[placeholder]).dtype)
        said.append(f"{placeholder.op.name} fed {new:g}")
    bools = 0
    for key, value in feed.items():
        dtype = getattr(key, "dtype", None)
        if dtype is not None and dtype.base_dtype.name == "bool" and np.ndim(value) == 0 and bool(value):
            out[key] = np.asarray(False)
            said.append(f"{key.op.name} fed False")
            bools += 1
    if not said:  # no keep_prob or is_training fed: the script defines no inference mode to compare with
        return None, "TF1's graph has no inference switch (no keep_prob or is_training fed)", 0
    return out, ", ".join(dict.fromkeys(said)), bools


KERAS_HOW = "its outermost Keras call with training=False"


def _switched(step_args, bools: int) -> tuple[object, int]:
    """The step's arguments with its scalar bool arguments that are True made False (of the same type), where
    there are exactly as many as TF1 turned False (`is_training` fed False: a rewrite's own flag argument, which no
    Keras call sets); else the arguments as they are. Returns (arguments, how many were switched)."""
    import tensorflow as tf

    leaves = tf.nest.flatten(step_args)
    true = [i for i, leaf in enumerate(leaves) if _true_bool(leaf)]
    if not bools or len(true) != bools:
        return step_args, 0
    for i in true:
        leaf = leaves[i]
        leaves[i] = False if isinstance(leaf, bool) else np.False_ if isinstance(leaf, np.generic) else \
            np.asarray(False) if isinstance(leaf, np.ndarray) else tf.constant(False)
    return tf.nest.pack_sequence_as(step_args, leaves), len(true)


def _true_bool(leaf) -> bool:
    dtype = getattr(leaf, "dtype", None)
    if isinstance(leaf, bool):
        return leaf
    if dtype is None or getattr(dtype, "name", str(dtype)) != "bool" or len(getattr(leaf, "shape", ())) != 0:
        return False
    return bool(np.asarray(leaf))


_DEPTH = [0]


@contextlib.contextmanager
def inference():
    """Keras 3's outermost layer call with `training=False` (the layers inside inherit it unless the script set
    theirs), for the `with` block."""
    import keras

    call = keras.layers.Layer.__call__

    def patched(layer, *args, **kwargs):
        if _DEPTH[0] == 0:
            kwargs["training"] = False
        _DEPTH[0] += 1
        try:
            return call(layer, *args, **kwargs)
        finally:
            _DEPTH[0] -= 1

    keras.layers.Layer.__call__ = patched
    try:
        yield
    finally:
        keras.layers.Layer.__call__ = call


class InferencePass:
    """`TF2Probe`'s part that reads the inference-mode loss at the first step's weights and state."""

    def _inference_pass(self) -> None:
        rec = self.record
        if self.step_args is None or self.unpaired:
            return
        saved = self._save_all()
        self.busy = True
        try:
            for key, var in self.variables.items():
                if f"after/0/{key}" in rec.arrays:
                    var.assign(rec.arrays[f"after/0/{key}"])
            for key, var in self._state_keys:
                if f"state/0/{key}" in rec.arrays:
                    var.assign(rec.arrays[f"state/0/{key}"])
            self.busy = False
            args, switched = _switched(self.step_args, self.tf1.eval_bools)
            rec.eval_how = KERAS_HOW + (f"; its {switched} bool argument(s) True made False" if switched else "")
            with inference():
                rec.eval_loss = self._probe("loss", args)
        except Exception as exc:  # the step cannot run in inference mode: said, not judged
            rec.eval_note = f"the inference-mode pass failed: {type(exc).__name__}: {str(exc)[:160]}"
        finally:
            self.busy = False
            self._restore_all(saved)
