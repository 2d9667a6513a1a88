"""`pair --dropout off`: every dropout both scripts call is replaced by the identity, in their own processes.

With dropout live on both sides each draws its masks from its own generator, so a faithful rewrite cannot
agree step by step. Off, the masks are the one thing not compared: the rest of the step is, and TF1's step no
longer draws random numbers, so its noise floor can be measured. The scripts' files are never changed.
Replaced: `tf.nn.dropout` and `tf.compat.v1.nn.dropout` (keep_prob and rate forms; the legacy runtime's
`tf.contrib.layers.dropout` and `DropoutWrapper` call it), and the `call` of every Keras `Dropout` class loaded
(Keras 3; tf-keras's when present).
"""

from __future__ import annotations

import importlib

from tfcompare.core.graphs import static_value

__all__ = ["MODES", "AS_WRITTEN", "OFF", "switch_off", "fed_rates", "text", "sites_text"]

AS_WRITTEN, OFF = "as-written", "off"
MODES = (AS_WRITTEN, OFF)


def sites_text(dropouts: list[dict]) -> str:
    """Each dropout's `how` once, with how many share it: an unrolled RNN's dropout is 82 calls from one line."""
    counts: dict[str, int] = {}
    for d in dropouts:
        counts[d["how"]] = counts.get(d["how"], 0) + 1
    return "; ".join(how + (f" (x{n})" if n > 1 else "") for how, n in counts.items())


def switch_off(identity, on_call) -> None:
    """Replace each dropout by `identity(x)` for this whole process (a pair's child); `on_call(output)` is told of
    every replaced call with what it returned."""
    import tensorflow as tf

    from tfcompare.scripts.child.user_script import compat_v1_modules

    def nn_dropout(x, *args, **kwargs):
        out = identity(x)
        on_call(out)
        return out

    tf.nn.dropout = nn_dropout
    for v1 in compat_v1_modules():
        v1.nn.dropout = nn_dropout
    for name in ("keras", "tf_keras"):
        try:
            layer = importlib.import_module(f"{name}.layers").Dropout
        except (ImportError, AttributeError):  # tf-keras is not installed with Keras 3
            continue

        def call(self, inputs, *args, **kwargs):
            on_call(inputs)
            return inputs

        for cls in {layer, *_subclasses(layer)}:
            if "call" in vars(cls):
                cls.call = call


def _subclasses(cls) -> set:
    out = set()
    for sub in cls.__subclasses__():  # SpatialDropout*: their own call draws one mask per channel
        out |= {sub, *_subclasses(sub)}
    return out


def fed_rates(run, sess, feed, forward, site) -> list[dict]:
    """The rate each dropout in a TF1 step is fed or set (`random >= rate` keeps an element; rate = 1 - keep_prob):
    per dropout {rate, how, live}. `run` is the unpatched Session.run, `forward` the loss's ancestors."""
    import numpy as np

    from tfcompare.core.graphs import ancestors

    masks = [op for op in forward if op.type == "GreaterEqual" and op.inputs[0].op.type == "RandomUniform"]
    if not masks:
        return []
    try:  # a rate set inside a tf.cond branch (`tf.layers.dropout(training=is_training)`) cannot be fetched: its
        # value is the constant's, and the dropout is live only where the feed takes its branch
        rates = [static_value(op.inputs[1]) for op in masks]
        fetched = iter(run(sess, [op.inputs[1] for op, r in zip(masks, rates) if r is None], feed))
        rates = [next(fetched) if r is None else r for r in rates]
        branches = [_branch_taken(run, sess, op, feed) for op in masks]
    except Exception:
        return []
    out = []
    for op, rate, taken in zip(masks, rates, branches):
        rate = float(np.max(rate)) if taken else 0.0
        # through data inputs: a cond's pivot (a control input) reads the fed flag, not the rate
        fed = any(a.type in ("Placeholder", "PlaceholderWithDefault") for a in ancestors([op.inputs[1]], control=False))
        out.append({"rate": rate, "how": f"rate {rate:g} (keep_prob {1 - rate:g}) {'fed' if fed else 'set'}, "
                                         f"{site(op)}", "live": rate > 0})
    return out


def _branch_taken(run, sess, op, feed) -> bool:
    """Whether a TF1 `tf.cond` branch holding `op` runs with this feed (True outside any cond)."""
    context = getattr(op, "_control_flow_context", None)
    while context is not None:
        pred, branch = getattr(context, "pred", None), getattr(context, "branch", None)
        while pred is not None and not pred.graph.is_fetchable(pred) and pred.op.type == "Identity":
            pred = pred.op.inputs[0]  # the cond's own `pred_id` is not fetchable; the flag it copies is
        if pred is not None and branch is not None and bool(run(sess, pred, feed)) != bool(branch):
            return False
        context = getattr(context, "outer_context", None)
    return True


def text(tf1: int, tf2: int, left: list[str] = ()) -> str:
    """What `--dropout off` did, said in the pair's output (text, JSON, TensorBoard); `left`: each side whose step
    still draws random numbers (a dropout of a form tfcompare does not replace, or other noise)."""
    if not (tf1 or tf2):
        out = ("off (--dropout off): neither script calls a dropout tfcompare replaces (0 in the TF1 script, 0 in the "
               "TF2 script): nothing was changed")
    else:
        out = (f"off on both sides (tfcompare replaced {tf1} dropout call(s) in the TF1 script and {tf2} in the TF2 "
               "script by the identity, --dropout off): the masks are the one thing not compared")
    if left:
        out += (f"; {' and '.join(left)} still draws random numbers in its step (not a dropout tfcompare "
                "replaces: tf.nn.dropout, tf.compat.v1.nn.dropout, keras Dropout)")
    return out
