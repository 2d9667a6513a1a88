"""The checks that name a cause of two recorded sides' steps differing (the steps themselves: `steps`).

Causes checked on their own, so each is named even when several differ at once: the loss reduction (a batch
fed twice: a mean stays, a sum doubles), the optimizer and its settings (from the recorded objects, confirmed
by fitting the first update to the first gradient), forward ops present on one side only, and each paired
variable's initialisation as the script itself made it (TF1's values were used on both sides).
"""

from __future__ import annotations

import math

import numpy as np

from tfcompare.scripts.child.draws import unshared
from tfcompare.core.equivalence import TOLERANCES
from tfcompare.core.gradient_transforms import UNSEEN, KERAS_KEYS, apply as apply_transform, cuts, difference
from tfcompare.core.optimizer_formulas import formula
from tfcompare.core.schedules import SET_BY_SCRIPT, is_schedule, setting_text
from tfcompare.scripts.child.dropout import sites_text
from tfcompare.scripts.pair import inputs
from tfcompare.scripts.pair.findings import Finding
from tfcompare.scripts.pair.steps import StepCheck
from tfcompare.scripts.pair.train_ops import several
from tfcompare.scripts.pair.initial_values import init_findings
from tfcompare.scripts.pair.sparse import sparse_repeats
from tfcompare.scripts.child.record import SideRecord

__all__ = ["Finding", "findings", "unpaired_findings", "reduction_kind", "reduction_of", "fitted_update",
           "optimizer_text"]

_TOL = TOLERANCES["float32"]


def reduction_kind(ratio: float | None, tolerance: float = 1e-3) -> str:
    """mean (the loss of a batch fed twice is the same), sum (it doubles), within `tolerance` relative."""
    if ratio is None or not math.isfinite(ratio):  # a loss that is NaN or inf: no ratio says anything
        return "unknown"
    if abs(ratio - 1) < tolerance:
        return "mean"
    if abs(ratio - 2) < 2 * tolerance:
        return "sum"
    return f"neither a mean nor a sum (x{ratio:.3g})"


def reduction_of(record: SideRecord, draws: bool = False) -> str:
    """The record's loss reduction; a loss that draws random numbers (a dropout, a VAE's noise: `draws`, or a
    dropout among the record's ops) draws new ones for the doubled batch: the ratio is then only roughly 1 or 2."""
    return reduction_kind(record.reduction_ratio, 0.1 if draws or (record.ops or {}).get("Dropout") else 1e-3)


def fitted_update(record: SideRecord) -> str:
    """The first update fitted to the first gradient: a multiple of it (SGD, momentum's first step) or of its
    sign (Adam's first step, RMSprop's roughly), with the factor: the learning rate either way."""
    if not record.steps:
        return "no step"
    grads, before, after = record.weights("grad", 0), record.weights("before", 0), record.weights("after", 0)
    keys = [k for k in grads if k in before and k in after]
    if not keys:
        return "not recorded"
    g = np.concatenate([grads[k].ravel() for k in keys]).astype(np.float64)
    d = np.concatenate([(after[k] - before[k]).ravel() for k in keys]).astype(np.float64)
    if not np.any(d):
        return "no change to the weights"
    w = np.concatenate([before[k].ravel() for k in keys]).astype(np.float64)
    rounding = 4 * np.finfo(np.float32).eps * np.linalg.norm(w)  # w - lr*g is rounded to float32
    if np.any(g):
        c = -float(d @ g) / float(g @ g)
        if np.linalg.norm(d + c * g) <= 1e-3 * np.linalg.norm(d) + rounding:
            return f"SGD-like (update = -{c:.3g} x gradient)"
    big = np.abs(g) > 1e-3 * np.abs(g).max() if np.any(g) else np.zeros_like(g, bool)
    if big.any():
        # a multiple of the sign: Adam's epsilon (or RMSprop's) bends only the smallest gradients, so most, not
        # all, elements must take the same step
        steps = -d[big] * np.sign(g[big])
        c = float(np.median(steps))
        if c > 0 and np.mean(np.abs(steps - c) <= 5e-2 * c) >= 0.9:
            return f"Adam/RMSprop-like (update = -{c:.3g} x sign of the gradient)"
    return "neither a multiple of the gradient nor of its sign"


def _fmt(v) -> str:
    return f"{v:.3g}" if isinstance(v, float) else setting_text(v) if isinstance(v, dict) else str(v)


def optimizer_text(side: dict | None) -> str:
    """A recorded optimizer as `source(setting=value, ...)`."""
    if side is None:
        return "not recognised"
    return f"{side['source']}({', '.join(f'{k}={_fmt(v)}' for k, v in side['settings'].items())})"


def _optimizer(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    one, two = tf1.optimizer, tf2.optimizer
    fits = f"(fitted from the first update: TF1 {fitted_update(tf1)}; TF2 {fitted_update(tf2)})"
    if one is None or two is None:
        missing = "TF1" if one is None else "TF2"
        if one == two:
            return []
        return [Finding("optimizer", f"the {missing} optimizer is not one tfcompare reads {fits}")]
    if one["kind"] != two["kind"]:
        return [Finding("optimizer", f"optimizer: {optimizer_text(one)} in TF1, {optimizer_text(two)} in TF2 {fits}",
                        True)]
    out = []
    for key, value in one["settings"].items():
        other = two["settings"].get(key)
        if other is None or is_schedule(other) or is_schedule(value) or value == other or \
                (isinstance(value, float) and math.isclose(value, other, rel_tol=1e-6)):  # a schedule: the rates tell
            continue
        if key == "learning_rate" and tf1.schedule not in ("", "constant"):
            continue  # TF1's rate at its first step, not a setting: `_learning_rates` compares each step's
        kind = "learning_rate" if key == "learning_rate" else "setting"
        out.append(Finding(kind, f"{key}: {_fmt(value)} in TF1, {_fmt(other)} in TF2 (both {one['kind']}) {fits}",
                           True))
    extras = {k: v for k, v in (two.get("extras") or {}).items() if k not in KERAS_KEYS.values()}
    if extras:  # clipping is a setting both sides have: `_gradient_transform` compares it
        out.append(Finding("setting", f"Keras-only settings on in TF2: {extras}", True))
    differs = formula(one["kind"], tf1.learning_rates)
    if not out and differs and two["source"].startswith("keras"):
        out.append(Finding("setting", f"{one['kind']}: every setting matches, but the formulas differ: {differs} "
                                      f"{fits}"))
    return out


def _gradient_transform(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    """Clipping as one setting on both sides (TF1's graph ops, Keras's optimizer setting, or by hand)."""
    said = difference(tf1.gradient_transform, tf2.gradient_transform)
    if said and tf2.gradient_transform.get("source") == UNSEEN and not any(
            cuts(tf1.gradient_transform, tf1.weights("grad", k)) for k in range(tf1.steps)):
        # TF2 may clip by hand with a bound its gradients stayed under, as TF1's did: nothing tells them apart
        return [Finding("gradient transform", f"{said.split('; Keras')[0]}; TF1's clip cut nothing in the steps "
                                              "compared, so whether TF2 clips by hand cannot be seen: not judged")]
    return [Finding("gradient transform", said, True)] if said else []


def _rates(rates: list) -> str:
    return ", ".join("?" if r is None else f"{r:.4g}" for r in rates)


def _learning_rates(tf1: SideRecord, tf2: SideRecord, steps: int) -> list[Finding]:
    """A learning-rate schedule on either side: the rate each compared step used, side by side, the schedules
    named. A rate that differs at any step is decisive (a staircase forgotten moves the rate from step 2 on)."""
    two = (tf2.optimizer or {}).get("settings", {}).get("learning_rate")
    one_set = tf1.schedule.startswith(SET_BY_SCRIPT)  # by the script's Python code, as TF2's Keras variable can be
    one_scheduled = tf1.schedule not in ("", "constant") and not one_set
    two_scheduled = two is not None and is_schedule(two)
    if not (one_scheduled or two_scheduled or one_set):
        return []
    r1, r2 = tf1.learning_rates[:steps], tf2.learning_rates[:steps]
    named = (f"TF1 {tf1.schedule or 'learning rate not read'}, TF2 "
             f"{setting_text(two) if two is not None else 'learning rate not read'}")
    known = [(k, a, b) for k, (a, b) in enumerate(zip(r1, r2), 1) if a is not None and b is not None]
    if not known:
        return [Finding("learning_rate", f"learning rate schedule: {named}; the rate each step used was not read on "
                                         "both sides, so it is not compared")]
    first = next(((k, a, b) for k, a, b in known if not math.isclose(a, b, rel_tol=1e-6)), None)
    per_step = f"per step TF1 {_rates(r1)}, TF2 {_rates(r2)}"
    if first is not None:
        k, a, b = first
        return [Finding("learning_rate", f"learning rate schedule: {named}; the rate used {per_step}: they first "
                                         f"differ at step {k} ({a:.6g} in TF1, {b:.6g} in TF2)", True)]
    if one_set and not two_scheduled:  # each script's own code sets it: the rates it used are what can be compared
        return [Finding("learning_rate", f"learning rate: {named}; the rate used {per_step} is the same at each of "
                                         f"the {len(known)} steps compared; what each script sets it to after them "
                                         "is not compared")]
    if one_scheduled != two_scheduled:  # a schedule forgotten (or added): the steps compared may not reach a change
        return [Finding("learning_rate", f"learning rate schedule: {named}; the rate used {per_step} is the same at "
                                         f"each of the {len(known)} steps compared, but only "
                                         f"{'TF1' if one_scheduled else 'TF2'} has a schedule: the scripts are not "
                                         "the same (later steps will differ)", True)]
    return []


def _replaced_dropouts(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    """--dropout off: a dropout one side has and the other lacks (the replaced calls counted per side) is no
    randomness to switch off but a difference between the scripts."""
    a, b = tf1.dropout_replaced, tf2.dropout_replaced
    if a is None or b is None or a == b:
        return []

    def n(count):
        return "none" if not count else f"{count} dropout{'s' if count > 1 else ''}"
    more, fewer = (("TF2", b), ("TF1", a)) if b > a else (("TF1", a), ("TF2", b))
    return [Finding("dropout", f"{more[0]} has {n(more[1])}, {fewer[0]} {n(fewer[1])}: --dropout off replaced them, "
                               "but the scripts are not the same", True)]


def _ops(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    if tf1.ops is None or tf2.ops is None:
        return []
    out = []
    one, two = ({k: v for k, v in ops.items() if k != "Dropout" or not (tf1.dropout or tf2.dropout)}
                for ops in (tf1.ops, tf2.ops))  # dropout: named with the rate each side ran it at (see _dropout)
    loops = [side for side, ops in (("TF1", one), ("TF2", two)) if "While loop" in ops]
    kinds = [set(ops) - {"While loop", "Transpose"} for ops in (one, two)]
    if loops and kinds[0] == kinds[1] and one != two:
        counts = "; ".join(f"{op} x{one.get(op, 0)} in TF1, x{two.get(op, 0)} in TF2"
                           for op in sorted(set(one) | set(two)) if one.get(op, 0) != two.get(op, 0))
        return [Finding("extra_op", f"forward ops: the same kinds on both sides, in other numbers because "
                                    f"{' and '.join(loops)} runs a loop whose body holds them once (an unrolled loop "
                                    f"holds them once per step): {counts}")]
    for op in sorted(set(one) | set(two)):
        a, b = one.get(op, 0), two.get(op, 0)
        if a != b:
            more = "TF2" if b > a else "TF1"
            out.append(Finding("extra_op", f"forward ops: {op} x{a} in TF1, x{b} in TF2 ({abs(a - b)} more in {more})"))
    return out


def _inputs(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    """TF2's own first batch against TF1's (see `inputs`); one finding per input, the batch size said once."""
    out: list[Finding] = []
    first = tf1.batch(0)
    kinds = {f["name"]: f["kind"] for f in tf1.feeds}
    for spec in tf2.inputs:
        own = tf2.arrays.get(f"own/{spec['leaf']}")
        if own is None or spec["feed"] not in first:
            continue
        if np.ndim(own) == 0:  # one example per step as a rank-0 value: nothing to take statistics of
            a, b = float(np.asarray(first[spec["feed"]])), float(own)
            if not np.isclose(a, b, rtol=1e-6, atol=0):
                out.append(Finding("inputs", f"inputs ({spec['feed']} in TF1, the step's argument #{spec['leaf']} in "
                                             f"TF2): the first example differs (TF1 {a:.6g}, TF2 {b:.6g})", False))
            continue
        for issue in inputs.compare_batches(first[spec["feed"]], kinds.get(spec["feed"], "features"), own, spec):
            text = f"inputs: {issue.text}" if issue.text.startswith("batch size") else \
                f"inputs ({spec['feed']} in TF1, the step's argument #{spec['leaf']} in TF2): {issue.text}"
            if text not in [f.text for f in out]:
                out.append(Finding("inputs", text, issue.decisive))
    if out:
        out[-1].text += "; TF1's batches were then given to TF2, so the steps compare the models on the same data"
    return out


def _where(checks: list[StepCheck]) -> list[Finding]:
    first = next((c for c in checks if not c.ok), None)
    if first is None or first.non_finite_tf1 or first.non_finite_tf2:  # said as NON-FINITE, not as a difference
        return []
    k = first.step
    if not first.loss_ok:
        what = (f"step {k}: its loss differs ({first.loss_tf1:.6g} in TF1, {first.loss_tf2:.6g} in TF2)"
                + (": the forward pass or the loss, before any update" if k == 1 else ": after the updates before it"))
    elif not first.gradients_ok:
        what = f"step {k}: its loss agrees, its gradients do not ({first.worst}): the loss's definition or its gradient"
    else:
        what = f"step {k}: its loss and gradients agree, the weights after it do not ({first.worst}): the update"
    return [Finding("where", f"the difference starts at {what}")]


def _reduction(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    # TF1's loss read twice differs, or draws TF2 was not given: the scripts' forward passes draw their own
    draws = bool(tf1.repeat) or unshared(tf1, tf2)
    r1, r2 = reduction_of(tf1, draws), reduction_of(tf2, draws)
    if "unknown" in (r1, r2) or r1 == r2:
        return []
    # decisive where one side is a mean or a sum: a loss that is neither on both sides (a softmax GAN's partition
    # over the whole batch) doubles with each side's way of doubling its inputs, which says nothing of the steps;
    # nor where the loss draws (a live dropout: x0.955 in TF1, x1.19 in TF2 on the cookbook's siamese network)
    neither = [r.startswith("neither") for r in (r1, r2)]
    return [Finding("reduction", f"loss reduction over the batch: {r1} in TF1, {r2} in TF2 (the same batch fed "
                                 f"twice: loss x{tf1.reduction_ratio:.3g} in TF1, x{tf2.reduction_ratio:.3g} in TF2)",
                    not (all(neither) or (draws and any(neither))))]


def unpaired_findings(tf1: SideRecord, tf2: SideRecord) -> list[Finding]:
    """What differs besides the variables, when they cannot be paired: each side's first step on its own."""
    optimizer = [f for f in _optimizer(tf1, tf2) + _gradient_transform(tf1, tf2)
                 if "the formulas differ" not in f.text]
    return _reduction(tf1, tf2) + optimizer + _ops(tf1, tf2)


def findings(tf1: SideRecord, tf2: SideRecord, pairs, checks: list[StepCheck]) -> list[Finding]:
    out = _where(checks)
    update_only = bool(out) and "the update" in out[0].text
    out += _reduction(tf1, tf2)
    optimizer = _optimizer(tf1, tf2) + _gradient_transform(tf1, tf2) + _learning_rates(tf1, tf2, len(checks))
    if not update_only:  # a formula difference is named only when it is what the steps show
        optimizer = [f for f in optimizer if "the formulas differ" not in f.text]
    out += optimizer
    if update_only:
        out += sparse_repeats(tf1, tf2, pairs) + _replay(tf1, tf2, pairs)
    out += _ops(tf1, tf2) + init_findings(tf1, tf2, pairs) + _inputs(tf1, tf2) + _replaced_dropouts(tf1, tf2)
    return out + _dropout(tf1, tf2, bool(out) and out[0].kind == "where")


def _dropout(tf1: SideRecord, tf2: SideRecord, steps_differ: bool) -> list[Finding]:
    """Dropout as each side's first step ran it: the rate fed or set, and whether it was live."""
    live = {side: [d for d in rec.dropout if d["live"]] for side, rec in (("TF1", tf1), ("TF2", tf2))}
    if not (live["TF1"] or live["TF2"]):
        return []

    def said(side):
        rec = tf1 if side == "TF1" else tf2
        if live[side]:
            return f"live in {side} ({sites_text(live[side])})"
        off = sites_text(rec.dropout)
        return f"off in {side}" + (f" ({off})" if off else "")
    both = live["TF1"] and live["TF2"]
    if both and not steps_differ:
        return []
    text = f"dropout: {said('TF1')}, {said('TF2')}"
    if both:
        return [Finding("randomness", f"{text}: each side draws its masks from its own generator, so the steps cannot "
                                      "agree; compare with dropout off on both sides (tfcompare pair --dropout "
                                      "off)")]
    return [Finding("dropout", f"{text}: one side drops units and the other does not", True)]


def _replay(tf1: SideRecord, tf2: SideRecord, pairs) -> list[Finding]:
    """Forward and gradients agree, the update does not: replay TF1's first gradient through both optimizers
    from TF1's weights for K steps, and measure what matching each differing setting leaves (own-code's replay)."""
    if not (tf1.optimizer and tf2.optimizer and tf2.optimizer_config) or tf1.optimizer["kind"] != tf2.optimizer["kind"] \
            or several(tf1):  # several optimizers take turns (a GAN): one replayed K times is not it
        return []
    import keras

    from tfcompare.core.optimizer_replay import OptimizerSide, replay

    try:
        tf2_object = keras.optimizers.deserialize(tf2.optimizer_config)
    except Exception:  # an optimizer class of the script's own: nothing to rebuild it from
        return []
    if difference(tf1.gradient_transform, tf2.gradient_transform):
        return []  # the clipping differs, and is said so: a replay of the optimizers would only repeat it
    weights, grads = tf1.weights("before", 0), tf1.weights("grad", 0)
    # the step's optimizer's variables: another optimizer's that its loss reads (a GAN's generator) are paired
    # and compared, but this step neither has their gradients nor updates them
    keys = [a for a, _, _ in pairs if a in grads and a in weights]
    if not keys:
        return []
    if tf1.gradient_transform["kind"] != "none":  # both clip alike: TF1's clipped gradients, Keras's clip off
        grads = apply_transform(tf1.gradient_transform, {k: grads[k] for k in keys})
        config = dict(tf2.optimizer_config, config={**tf2.optimizer_config.get("config", {}),
                                                    **{k: None for k in KERAS_KEYS.values()}})
        try:
            tf2_object = keras.optimizers.deserialize(config)
        except Exception:
            return []
    found = replay(OptimizerSide(**tf1.optimizer), OptimizerSide(**tf2.optimizer), tf2_object,
                   {k: weights[k] for k in keys}, {k: grads[k] for k in keys}, tf1.steps, _TOL.rtol,
                   (tf1.learning_rates, tf2.learning_rates))
    return [Finding("replay", f"replayed: {found.line()}")]
