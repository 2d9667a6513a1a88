"""The optimizer's slots of each paired variable, compared after every step: state the next steps read.

Adam's moments, a momentum accumulator, RMSprop's mean square and Adagrad's accumulator are what the following
steps (and a checkpoint) carry forward. Both children record them in TF1's names (`child.slots`); they are compared
where both sides run the same kind of optimizer, the variables paired as the weights are. Keras's SGD momentum
holds `-learning_rate x` the velocity TF1's `MomentumOptimizer` accumulates, so TF1's accumulator is carried into
Keras's form first (`m_k = momentum * m_(k-1) - lr_k * (a_k - momentum * a_(k-1))`, with TF1's own momentum and
the learning rate each of its steps used).

The rule, against TF1's own noise floor for each slot (the replays of `child.noise`): a slot differs when its
element-wise tolerance fails and its relative error is beyond `noise.FACTOR` x its floor; after the first step
also when the error is over `LATER_TOL`. Step 1's slots are a function of the first gradient alone, taken by both
sides from the same weights on the same batch; later gradients are taken at weights that already differ within the
noise, and a gradient jumps where a ReLU's input crosses zero (seen: 2e-5 relative): the weights, which the
learning rate scales, do not show such a jump, a moment that holds (1 - beta) x the gradient does. A setting that
differs (beta 0.9 against 0.99) moves a moment by tenths. From the second step on one variable's slot past its own
floor is a difference only when the slot of every variable compared, taken as one state, is past the state's floor
too (as the weights are judged there: `steps.state_squares`).

The step counters (TF1's global step, Keras's `optimizer.iterations`) are compared by how far each step moves
them: a TF1 script that does not give its global step to `minimize` never moves it, and a schedule that reads it
never decays (decisive where a side's learning rate reads its counter; a note where nothing does).
"""

from __future__ import annotations

import numpy as np

from tfcompare.core.equivalence import TOLERANCES
from tfcompare.scripts.child import noise
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.child.slots import SLOT_KEY, keras_own, key
from tfcompare.scripts.pair.findings import Finding
from tfcompare.scripts.pair.steps import state_squares

__all__ = ["slot_pairs", "slot_findings", "counter_findings", "LATER_TOL"]

LATER_TOL = 1e-3
_TOL = TOLERANCES["float32"]
_WHAT = {"m": "first moment", "v": "second moment", "vhat": "largest second moment (amsgrad)",
         "momentum": "momentum accumulator", "rms": "mean square", "mg": "mean gradient (centered)",
         "accumulator": "accumulator", "accum": "accumulated squared gradients",
         "accum_update": "accumulated squared updates"}


def _names(rec: SideRecord) -> dict[str, set[str]]:
    """Variable key -> the slots a side recorded for it after a step (a GAN's generator optimizer, built by its
    first update, has them from the generator's first step)."""
    out: dict[str, set[str]] = {}
    for k in rec.arrays:
        m = SLOT_KEY.match(k)
        if m and m.group(2) != "init":
            out.setdefault(m.group(3), set()).add(m.group(1))
    return out


def _kind(rec: SideRecord) -> str:
    return (rec.optimizer or {}).get("kind", "")


def slot_pairs(tf1: SideRecord, tf2: SideRecord, pairs) -> tuple[list[tuple[str, str, str]], str]:
    """([(slot name, TF1 variable key, TF2 variable key)], a note on what is not compared, or "")."""
    names1, names2 = _names(tf1), _names(tf2)
    if not _kind(tf1) or _kind(tf1) != _kind(tf2):
        return [], ("optimizer slots not compared: the two optimizers are of different kinds" if (names1 or names2)
                    and _kind(tf1) and _kind(tf2) else "")
    out, only1, only2 = [], set(), set()
    for a, b, _ in pairs:
        one, two = names1.get(a, set()), names2.get(b, set())
        out += [(name, a, b) for name in sorted(one & two)]
        only1 |= one - two
        only2 |= two - one
    notes = [f"{side}'s optimizer slots with no counterpart, not compared: {', '.join(sorted(left))}"
             for side, left in (("TF1", only1), ("TF2", only2)) if left]
    return out, "; ".join(notes)


def _keras_form(tf2: SideRecord) -> bool:
    """Whether TF2's optimizer is Keras's own (its SGD keeps momentum as `-lr x` TF1's accumulator), not one of the
    script's (convert writes TF1's Momentum update, accumulator and all)."""
    return keras_own((tf2.optimizer or {}).get("source", ""))


def _tf1_values(tf1: SideRecord, name: str, variable_key: str, steps: int,
                keras_form: bool) -> list[np.ndarray] | None:
    """TF1's slot after each step, in the form the TF2 optimizer keeps it (Keras's SGD momentum, `keras_form`: see
    the module's docstring); None when that form cannot be computed (a learning rate not read)."""
    values = [np.asarray(tf1.arrays[key(name, k, variable_key)], np.float64) for k in range(steps)]
    if _kind(tf1) != "momentum" or name != "momentum" or not keras_form:
        return values
    momentum = (tf1.optimizer or {}).get("settings", {}).get("momentum")
    rates = tf1.learning_rates[:steps]
    if not isinstance(momentum, (int, float)) or len(rates) < steps or any(r is None for r in rates):
        return None
    previous = np.asarray(tf1.arrays.get(key(name, "init", variable_key), np.zeros_like(values[0])), np.float64)
    m, out = np.zeros_like(values[0]), []
    for a, rate in zip(values, rates):
        m = momentum * m - rate * (a - momentum * previous)
        out.append(m)
        previous = a
    return out


def _floor(tf1: SideRecord, step: int, name: str, variable_key: str) -> float | None:
    if step >= len(tf1.floor):
        return None
    return tf1.floor[step].get("slots", {}).get(f"{name}/{variable_key}")


def _differs(a: np.ndarray, b: np.ndarray, err: float, floor: float | None, step: int) -> bool:
    scale = float(np.abs(a).max()) if a.size else 0.0
    if not np.isfinite(scale):  # TF1's slot went NaN or inf: the step is non-finite (its own verdict), no tolerance
        return not np.array_equal(a, b, equal_nan=True)
    if np.allclose(b, a, rtol=_TOL.rtol, atol=_TOL.atol * scale):
        return False
    return noise.beyond(err, floor) and (step == 0 or err > LATER_TOL)


def _ratio(a: np.ndarray, b: np.ndarray) -> float | None:
    big = np.abs(a) > 1e-6 * max(float(np.abs(a).max()), 1e-30)
    return float(np.median(b[big] / a[big])) if big.any() else None


def _explained(checks, step: int) -> bool:
    """Whether the slots after `step` (from 0) are what an earlier difference left: a step before it that differs,
    or this step's own loss or gradients (a slot holds the gradients it was given)."""
    if checks is None or step >= len(checks):
        return checks is not None
    return not (all(c.ok for c in checks[:step]) and checks[step].loss_ok and checks[step].gradients_ok)


def _starts(tf1: SideRecord, name: str, variable_key: str) -> str:
    """`; TF1's slot starts at 1` where TF1's starts at one value that is not 0 (RMSProp's mean square)."""
    init = tf1.arrays.get(key(name, "init", variable_key))
    if init is None or not np.size(init) or np.any(init != np.asarray(init).flat[0]) or not np.asarray(init).flat[0]:
        return ""
    return f"; TF1's starts at {float(np.asarray(init).flat[0]):g} before the first step"


def _state_beyond(tf1: SideRecord, tf2: SideRecord, compared, converted: dict, name: str, k: int) -> str | None:
    """From the second step on, slot `name` of every variable compared, taken as one state: "" when it is within
    the state's floor, else the numbers that put it beyond (`steps.state_squares`: which variable a replay's
    largest gap lands in is chance there); None
    where no replay's gaps were recorded (each slot's own floor decides). The floor is relative to TF1's slot as
    it holds it, the error to the form the TF2 optimizer keeps it in (Keras's momentum: -lr x TF1's)."""
    squares = state_squares(tf1.floor[k] if k < len(tf1.floor) else None, k, "slots")
    members = [(a, b) for n, a, b in compared if n == name and converted[(name, a)] is not None
               and key(name, k, a) in tf1.arrays and key(name, k, b) in tf2.arrays]
    if squares is None or not members:
        return None
    raw = {f"{name}/{a}": tf1.arrays[key(name, k, a)] for a, _ in members}
    floor = noise.whole(raw, raw, squares)[1]
    error = noise.whole({f"{name}/{a}": converted[(name, a)][k] for a, _ in members},
                        {f"{name}/{a}": tf2.arrays[key(name, k, b)] for a, b in members}, None)[0]
    if floor is None:
        return None
    beyond = noise.beyond(error, floor) and error > LATER_TOL
    return f"; every variable's {name} as one state: rel err {error:.2g} (floor {floor:.2g})" if beyond else ""


def slot_findings(tf1: SideRecord, tf2: SideRecord, pairs, checks=None) -> tuple[list[Finding], list[dict], str]:
    """(a decisive finding per slot name that differs, at its first step and variable; what was compared; a note
    on what was not). With the steps' `checks`, a slot that differs where its step's loss or gradients, or an
    earlier step, already differ is that difference carried forward: not a finding of its own."""
    compared, note = slot_pairs(tf1, tf2, pairs)
    steps = min(tf1.steps, tf2.steps)
    names = {a: tf1.var(a).name for _, a, _ in compared}
    found: dict[str, Finding] = {}
    skipped = set()
    converted = {(name, a): _tf1_values(tf1, name, a, steps, _keras_form(tf2)) for name, a, _ in compared}
    as_state: dict[tuple[str, int], str | None] = {}
    for name, a, b in compared:
        # the steps after which both sides hold the slot: every step, or from a later optimizer's first one on
        held = [k for k in range(steps) if key(name, k, b) in tf2.arrays and key(name, k, a) in tf1.arrays]
        if name in found or not held or held != list(range(held[0], steps)):
            continue
        ones = converted[(name, a)]
        if ones is None:
            skipped.add(name)
            continue
        for k in held:
            one, two = ones[k], np.asarray(tf2.arrays[key(name, k, b)], np.float64)
            if one.shape != two.shape:
                break
            err, floor = noise.relative(one, two), _floor(tf1, k, name, a)
            if not _differs(one, two, err, floor, k):
                continue
            if (name, k) not in as_state:
                as_state[(name, k)] = _state_beyond(tf1, tf2, compared, converted, name, k)
            if as_state[(name, k)] == "":  # one variable's slot, within the noise of the state's
                continue
            if _explained(checks, k):
                break
            shown = f"floor {floor:.2g}" if floor is not None else "no floor measured"
            ratio = _ratio(one, two) if k == 0 else None
            how = _starts(tf1, name, a) or (f"; TF2's is {ratio:.3g}x TF1's" if ratio is not None and
                                             abs(ratio - 1) > 1e-3 else "")
            later = "" if k == 0 else f"{as_state[(name, k)] or ''} (step 1 agreed: a difference that builds up)"
            found[name] = Finding("slots", f"optimizer slot {name} ({_WHAT.get(name, name)}) of {names[a]} (TF1) vs "
                                           f"{tf2.var(b).name} (TF2) after step {k + 1}: rel err {err:.2g} ({shown})"
                                           f"{how}{later}", True)
            break
    if skipped:
        note = "; ".join(filter(None, [note, f"optimizer slots {', '.join(sorted(skipped))} not compared: TF1's "
                                              "learning rate at each step was not read"]))
    summary = [{"slot": name, "variables": sum(1 for n, _, _ in compared if n == name)}
               for name in dict.fromkeys(n for n, _, _ in compared) if name not in skipped]
    return list(found.values()), summary, note


def _advances(rec: SideRecord, steps: int) -> list[float] | None:
    """How far the side's step counter moved in each step, or None where it was not read."""
    values = [rec.arrays.get("counter/init"), *(rec.arrays.get(f"counter/{k}") for k in range(steps))]
    if rec.counter is None or any(v is None for v in values):
        return None
    return [float(np.asarray(b)) - float(np.asarray(a)) for a, b in zip(values, values[1:])]


def counter_findings(tf1: SideRecord, tf2: SideRecord) -> tuple[list[Finding], str]:
    """(a decisive finding when the step counters advance otherwise and a learning rate reads one, a note when
    they do but nothing the steps compute reads them, or "" / the counters compared)."""
    steps = min(tf1.steps, tf2.steps)
    one, two = _advances(tf1, steps), _advances(tf2, steps)
    if one is None or two is None:
        return [], ""
    names = f"TF1 {tf1.counter['name']}, TF2 {tf2.counter['name']}"
    if one == two:
        return [], f"step counters compared ({names}): {_by(one)} per step on both sides"
    text = (f"step counter: TF1's {tf1.counter['name']} advances {_by(one)} per step"
            + (" (the global step is not given to minimize / apply_gradients)" if set(one) == {0.0} else "")
            + f", TF2's {tf2.counter['name']} {_by(two)}")
    readers = [side for side, rec in (("TF1", tf1), ("TF2", tf2)) if rec.counter.get("read_by_rate")]
    if readers:
        whose = "both sides' learning-rate schedules read their counters" if len(readers) == 2 else \
            f"{readers[0]}'s learning-rate schedule reads it"
        return [Finding("counter", f"{text}: {whose}, so the rates move apart as training goes on", True)], ""
    return [], f"{text}; nothing the compared steps compute reads either (a schedule or a checkpoint would)"


def _by(advances: list[float]) -> str:
    same = set(advances)
    return f"by {advances[0]:g}" if len(same) == 1 else "by " + ", ".join(f"{a:g}" for a in advances)
