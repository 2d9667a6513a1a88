"""The pair's own float32 noise floor, and the rule that judges TF1 against TF2 with it.

Two float32 programs that compute the same thing in another order differ by rounding; a step that divides a
gradient by its own root mean square (Adam, RMSprop) turns that rounding into visible weight differences. A
fixed element-wise tolerance alone calls such a pair different. So the TF1 side, the reference, is run again
from the same initial weights through its real optimizer for the same K steps, five times: twice with each
batch's examples permuted (a mean or sum over examples is unchanged, every reduction is reordered), twice
with the initial weights moved by one float32 ulp, each time with other random draws, and once with the
optimizer's scalar settings (learning rate, betas, epsilon, momentum, decay, Adam's beta powers) moved by one
float32 ulp (twice, each setting up or down by a seeded draw). That last one is how two faithful optimizers differ: Keras's Adam computes 1 - beta_2 in float64
and rounds it once, TF1's ApplyAdam subtracts in float32 (0.001 against 0.00099998713): a systematic gap of
1e-5 in every second moment, which no reordering reproduces and which, at a loss of 1e4 with weights drawn with
std 1, grows into the loss of the next steps. The largest of the gaps to
the original run, per step and per tensor, relative to the tensor's norm (||a - b|| / ||a||), is the floor. TF1
and TF2 differ on a tensor only when its element-wise tolerance fails AND its relative error is more than
`FACTOR` times the floor. Each replay's squared gap per weight and slot is kept too: from the second step on the
tensors are judged together (`whole`), since which tensor a replay's largest gap lands in is chance there.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from tfcompare.core.graphs import read_tensors
from tfcompare.scripts.child import slots

__all__ = ["FACTOR", "MIN_FLOOR", "relative", "whole", "beyond", "snapshot", "restore", "repeat", "live_random",
           "measure", "dense", "quiet", "replay_unit", "units"]

FACTOR = 10.0
MIN_FLOOR = float(np.finfo(np.float32).eps)  # a floor measured as 0 (bit-identical replays) counts as one ulp
_SEED = 20261201
# a replay whose first loss moved more than this is not rounding: the loss depends on the order of the examples
# (permuted) or on the weights' last bit (perturbed: it cannot); that replay is left out of the floor
_VALID = {"permuted": 1e-4, "perturbed": 1e-3, "constants": 1e-3}
# a loss read twice that moved less than this moved by float32 rounding in kernels whose reduction order is not
# fixed (a ResNet's convolutions on a loaded machine: 6.6e-8 seen), not by a random draw (a dropout, a VAE's noise
# move it by 1e-3 and more): that run is still compared number for number, its floor holding the rounding
ROUNDING = 1e-6
_REPLAYS = [("permuted", 0), ("perturbed", 0), ("permuted", 1), ("perturbed", 1),
            ("constants", 0), ("constants", 1)]  # the floor: the largest gap


def relative(a, b) -> float:
    """||a - b|| / ||a|| in float64 (||a - b|| when a is all zeros)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return float("inf")
    gap = float(np.linalg.norm((a - b).ravel()))
    norm = float(np.linalg.norm(a.ravel()))
    return gap / norm if norm else gap


def beyond(error: float, floor: float | None) -> bool:
    """Whether a relative error is outside the noise: more than FACTOR x the floor (at least one ulp)."""
    return error > FACTOR * max(floor if floor is not None else 0.0, MIN_FLOOR)


@contextlib.contextmanager
def quiet():
    """tfcompare's own numpy arithmetic on the script's values (a loss gone inf or NaN): no RuntimeWarning, which
    would be printed among the script's output as if the script had raised it."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# --- measured in the TF1 child -------------------------------------------------------------------------------
def _globals(sess):
    import tensorflow as tf

    return sess.graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)


def snapshot(probe, sess) -> list | None:
    """Every global variable (weights, optimizer slots, step counters) and its value before the first step."""
    try:
        variables = _globals(sess)
        return list(zip(variables, probe._run(sess, variables)))
    except Exception as exc:  # an uninitialised variable the step does not use, say
        probe.record.floor_note = f"the variables could not be read before the first step: {_first_line(exc)}"
        return None


def restore(sess, values: list) -> None:
    """Every variable of a `snapshot` back to its value (a load runs no op of the script's)."""
    _restore(sess, values, (), None)


def repeat(probe, sess, feed, loss) -> tuple[float, np.ndarray | None]:
    """The first batch's loss again, from the same weights: a change beyond rounding means random numbers are drawn
    live (0 when it is within `ROUNDING`). Where nothing random is left live (every draw fed), a second read tells
    a draw from a race: two reads that agree with each other and not with the run are TF1's own race between the
    fetched loss and the train op it ran with (a loss read through resource variables after an update wrote them:
    TF1 orders a fetch and an update by their data alone). Returns (the change, the loss read from the weights
    before the run where the run's own raced, else None)."""
    read = np.asarray(probe._run(sess, probe.loss, feed))
    change = drawn(relative(loss, read))
    if change and not live_random(probe.loss, feed):
        again = np.asarray(probe._run(sess, probe.loss, feed))  # nothing drawn: every random op is fed
        if not drawn(relative(read, again)):
            return 0.0, read
    return change, None


def live_random(loss, feed) -> bool:
    """Whether a random op computes `loss` when `feed` is fed (a fed tensor's producer does not run)."""
    fed = {getattr(k, "name", k) for k in feed}
    return any("Random" in t.op.type or t.op.type in ("TruncatedNormal", "Multinomial")
               for t in read_tensors(loss, fed) if t.name not in fed)


def drawn(change: float) -> float:
    """A repeated read's relative change where it is a random draw's, else 0 (float32 rounding)."""
    return change if change > ROUNDING else 0.0


def _restore(sess, start, trained, rng) -> None:
    for var, value in start:
        if rng is not None and any(var is v for v in trained) and np.issubdtype(np.asarray(value).dtype, np.floating):
            value = value + rng.choice([-1.0, 1.0], size=np.shape(value)).astype(value.dtype) * np.spacing(value)
        var.load(value, sess)


def _permuted(feed: dict, rng) -> dict:
    sizes = [np.shape(v)[0] for v in feed.values() if np.ndim(v) >= 1]
    if not sizes:
        return feed
    batch = max(set(sizes), key=sizes.count)
    order = rng.permutation(batch)
    return {k: (np.asarray(v)[order] if np.ndim(v) >= 1 and np.shape(v)[0] == batch else v) for k, v in feed.items()}


def _settings(train_op) -> list:
    """The scalar float inputs of the optimizer's update ops (`Apply*` / `ResourceApply*`) below `train_op`:
    learning rate, betas, epsilon, momentum, decay, beta powers: what a faithful rewrite may round otherwise."""
    seen, todo, out = set(), [getattr(train_op, "op", train_op)], []
    while todo:
        op = todo.pop()
        if op is None or op.name in seen:
            continue
        seen.add(op.name)
        todo.extend(op.control_inputs)
        todo.extend(t.op for t in op.inputs)  # the train op's ancestors hold only its own optimizer's updates
        if op.type.startswith(("Apply", "ResourceApply")):
            for t in op.inputs:
                if t.dtype.is_floating and not t.dtype._is_ref_dtype and t.shape.rank == 0 \
                        and op.graph.is_feedable(t) and all(t is not o for o in out):
                    out.append(t)
    return out


def _nudged(sess, probe, settings: list, fed: dict, signs) -> dict:
    """`fed` plus each optimizer setting's value this step, moved by one float32 ulp (up or down by `signs`)."""
    if not settings:
        return fed
    values = probe._run(sess, settings, fed)
    out = dict(fed)
    for t, value, sign in zip(settings, values, signs):
        value = np.asarray(value)
        out[t] = np.nextafter(value, np.asarray(sign * np.inf, value.dtype)).astype(value.dtype)
    return out


def measure(probe, sess) -> None:
    """Replay the recorded steps twice (permuted, perturbed) and store the floor in the record."""

    rec = probe.record
    if probe._start is None:
        return
    if rec.repeat:
        rec.floor_note = (f"TF1's loss of the same batch from the same weights changed by {rec.repeat:.2g} (relative) "
                          "when read twice: the step draws random numbers, so its noise floor cannot be measured")
        return
    from tfcompare.scripts.child.train_ops import entries  # TensorFlow's: the comparing process never imports it

    variables = probe.all_variables  # every optimizer's; each step replays the train op it ran (a GAN's two)
    listed = entries(probe.found)
    ops = [listed[i] for i in rec.step_ops]
    keys = [v.key for v in rec.variables]
    floors: list[dict] = []
    used = []
    try:
        for variant, seed in _REPLAYS:
            rng = np.random.default_rng([_SEED, seed])
            nudge = {}  # per train op, in the order of its first step: its settings and their signs
            for op in ops:
                if id(op) not in nudge:
                    found = _settings(op["train_op"]) if variant == "constants" else []
                    nudge[id(op)] = (found, rng.choice([-1.0, 1.0], size=len(found)))
            if variant == "constants" and not any(found for found, _ in nudge.values()):
                continue
            _restore(sess, probe._start, variables, rng if variant == "perturbed" else None)
            gaps = []
            for unit in units(rec):
                feed = probe._fed[unit[0]]
                fed = _permuted(feed, rng) if variant == "permuted" else feed
                nudged = {}
                held = probe._run(sess, probe._state) if probe._state else []  # a variable's read moves nothing
                for k in unit:
                    settings, signs = nudge[id(ops[k])]
                    nudged.update(_nudged(sess, probe, settings, fed, signs))
                for v, value in zip(probe._state or [], held):  # a setting under control_dependencies(UPDATE_OPS)
                    v.load(value, sess)  # ran the updates when read: the state as the step found it
                results = replay_unit(probe, sess, [ops[k] for k in unit], fed, nudged)
                for k, result in zip(unit, results):
                    gaps.append(_gaps(rec, k, ops[k], keys, probe.slots, *result))
            if gaps and gaps[0]["loss"] > _VALID[variant]:
                rec.notes.append(f"noise floor: the {variant} replay moved TF1's first loss by {gaps[0]['loss']:.2g} "
                                 "(relative), more than rounding: left out of the floor")
                continue
            if variant not in used:
                used.append(variant)
            floors = gaps if not floors else [_larger(a, b) for a, b in zip(floors, gaps)]
    except Exception as exc:  # a variable that cannot be loaded again, a step that cannot be replayed
        rec.floor_note = f"TF1's steps could not be replayed to measure the noise floor: {_first_line(exc)}"
        return
    if not used:
        rec.floor_note = ("both replays moved TF1's first loss by more than rounding (its batches may come from an "
                          "iterator that hands out new ones)")
        return
    rec.floor = _until_moved(rec, floors)
    rec.floor_how = ", ".join({"permuted": "each batch's examples permuted (twice)",
                                "perturbed": "the initial weights moved by one float32 ulp (twice)",
                                "constants": "the optimizer's scalar settings moved by one float32 ulp (twice)"}[v]
                               for v in used)


def _gaps(rec, k, op, keys, found_slots, loss, grad_values, after, slot_values, state_values=()) -> dict:
    """A replayed step's gaps to the recorded one, relative, per loss, gradient, weight, slot and non-trainable
    state (a moving average of batch moments moves with the weights' own noise)."""
    weights = {key: (rec.arrays[f"after/{k}/{key}"], a) for key, a in zip(keys, after)}
    replayed = _replayed(op) if state_values else set()
    held = {f"{name}/{key}": (rec.arrays[slots.key(name, k, key)], value)
            for (name, key, _), value in zip(found_slots, slot_values)}
    return {"loss": relative(rec.losses[k], float(np.asarray(loss).sum())),
            "gradients": {v.op.name: relative(rec.arrays[f"grad/{k}/{v.op.name}"], dense(g))
                          for (_, v), g in zip(op["grads_and_vars"], grad_values)},
            "weights": {key: relative(*pair) for key, pair in weights.items()},
            "slots": {name: relative(*pair) for name, pair in held.items()},
            "state": {entry["key"]: relative(rec.arrays[f"state/{k}/{entry['key']}"], value)
                      for entry, value in zip(rec.state, state_values)
                      if f"state/{k}/{entry['key']}" in rec.arrays and entry["name"] in replayed},
            "squares": {"weights": {key: [_square(*pair)] for key, pair in weights.items()},
                        "slots": {name: [_square(*pair)] for name, pair in held.items()}}}


def _replayed(entry) -> set:
    """The variables the replay of `entry`'s train op writes: only their state has a floor (a moving average
    the script's group runs beside the train op is not replayed, and its gap to the recorded run is no noise)."""
    from tfcompare.scripts.child.train_ops import written  # TensorFlow's: see measure

    return {op.name for op in written(entry["train_op"])}


def _square(a, b) -> float:
    """||a - b||^2 in float64: a replay's gap on one tensor, which `whole` adds up over the tensors compared."""
    gap = (np.asarray(a, np.float64) - np.asarray(b, np.float64)).ravel()
    return float(gap @ gap)


def replay_unit(probe, sess, entries: list, fed: dict, settings: dict | None = None) -> list[tuple]:
    """One recorded run replayed from the weights as they are, on its batch `fed` (`settings`: optimizer scalars
    fed to the update, the floor's nudge): per train op, (loss, gradients, weights after, slots after). One train
    op runs as the script ran it; several that read each other's variables (`units`) run without the race: every
    loss and gradient read first, then every update applied in one run with those gradients fed, and each op's
    weights and slots after it hold what later ops write as the run found them. Last, the non-trainable state
    after the run (`probe._state`)."""
    from tfcompare.scripts.child.train_ops import held_variables, written  # TensorFlow's: see measure

    run = lambda fetches, feed=None: probe._run(sess, fetches, feed)  # noqa: E731
    values = run([[e["loss"], e["raw_grads"]] for e in entries], fed)
    slot_vars = [s for *_, s in probe.slots]
    state = list(getattr(probe, "_state", None) or [])
    if len(entries) == 1:
        # state the read above updates (`ema.apply` of batch moments under `tf.cond(is_training, ...)` in the loss;
        # UPDATE_OPS the gradients wait on, built under the train op's `control_dependencies`) moved once there, as
        # in the script's one run; the train op's run moves it again: put back
        read = [t.op for t in [entries[0]["loss"], *entries[0]["raw_grads"]] if t is not None and hasattr(t, "op")]
        moved = set().union(*(written(op) for op in read)) if state else set()
        forced = [v for v in state if v.op in moved]
        once = run(forced) if forced else []
        run(entries[0]["train_op"], {**fed, **(settings or {})})
        for v, value in zip(forced, once):
            v.load(value, sess)
        return [(*values[0], *run([probe.all_variables, slot_vars, state]))]
    later = [written(e["train_op"]) for e in entries]
    kept = held_variables(sess.graph, set().union(*later[1:]))
    before = dict(zip([v.op for v in kept], run(kept))) if kept else {}
    feed = {**fed, **(settings or {})}
    for entry, (_, grads) in zip(entries, values):
        feed.update(zip(entry["raw_grads"], grads))
    run([e["train_op"] for e in entries], feed)
    after, slot_values = run([probe.all_variables, slot_vars])
    state_values = []  # the losses' reads above may have moved it too: no floor for it from this run
    out = []
    for j, (loss, grads) in enumerate(values):
        keep = set().union(*later[j + 1:])
        out.append((loss, grads, [before[v.op] if v.op in keep else a for v, a in zip(probe.all_variables, after)],
                    [before[s.op] if s.op in keep else a for s, a in zip(slot_vars, slot_values)], state_values))
    return out


# --- a run of several train ops that read each other's variables (joint_runs) ---------------------------------
def units(record) -> list[list[int]]:
    """The recorded steps as replay units: each group of one run (`record.joint`), every other step alone."""
    grouped = {k: group for group in record.joint for k in group}
    out, k = [], 0
    while k < record.steps:
        unit = [s for s in grouped.get(k, [k]) if s < record.steps]
        out.append(unit)
        k = unit[-1] + 1
    return out


def _same(a, b) -> bool:
    """Equal, a NaN where the other has a NaN too (weights a diverged step left are not moved by the script)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc")


def _until_moved(rec, floors: list[dict]) -> list[dict]:
    """The floors, where the script moved the weights between two steps (weight clipping, an assign in its own
    Session.run: the weights before step k+1 are not what step k left) only up to that step: the replays run the
    train ops alone, so from there on they start elsewhere and their gaps are not rounding. The later steps take
    the floor of the last step before the move."""
    keys = [v.key for v in rec.variables]
    moved = next((k for k in range(1, len(floors)) if any(
        not _same(rec.arrays[f"before/{k}/{key}"], rec.arrays[f"after/{k - 1}/{key}"]) for key in keys)), None)
    if moved is None:
        return floors
    rec.notes.append(f"noise floor: the script changes the weights between its steps (before step {moved + 1} they "
                     f"are not what step {moved} left: weight clipping, an assign of its own); the replays run the "
                     f"train ops alone, so steps {moved + 1} on are judged with step {moved}'s floor")
    return floors[:moved] + [floors[moved - 1]] * (len(floors) - moved)


def _larger(a: dict, b: dict) -> dict:
    """Two replays' gaps as one floor: the larger per tensor, and each replay's squared gaps kept (`whole`)."""
    return {"loss": max(a["loss"], b["loss"]),
            "gradients": {k: max(v, b["gradients"][k]) for k, v in a["gradients"].items()},
            "weights": {k: max(v, b["weights"][k]) for k, v in a["weights"].items()},
            "slots": {k: max(v, b["slots"][k]) for k, v in a["slots"].items()},
            "state": {k: max(v, b.get("state", {}).get(k, v)) for k, v in a.get("state", {}).items()},
            "squares": {what: {k: v + b["squares"][what][k] for k, v in a["squares"][what].items()}
                        for what in ("weights", "slots")}}


def whole(reference: dict, values: dict, squares: dict | None) -> tuple[float, float | None]:
    """(relative error, floor) of the tensors `reference` names taken together, as one state: ||a - b|| / ||a|| over
    all their elements, and the largest such gap of one replay (`squares`: per tensor, each replay's squared gap);
    None where a tensor's replays were not recorded. Which tensor a replay's largest gap lands in is chance from the
    second step on (see `step_checks`); the state's gap is not."""
    names = [n for n in reference if n in values]
    ref = [np.asarray(reference[n], np.float64).ravel() for n in names]
    gap = [ref_n - np.asarray(values[n], np.float64).ravel() if np.shape(values[n]) == np.shape(reference[n])
           else np.full(1, np.inf) for ref_n, n in zip(ref, names)]
    norm = float(np.sqrt(sum(float(r @ r) for r in ref)))
    error = float(np.sqrt(sum(float(g @ g) for g in gap)))
    error = error / norm if norm else error
    if squares is None or any(n not in squares for n in names) or not names:
        return error, None
    replays = len(squares[names[0]])
    floor = float(np.sqrt(max(sum(squares[n][r] for n in names) for r in range(replays))))
    return error, floor / norm if norm else floor


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"


def dense(value) -> np.ndarray:
    """An IndexedSlicesValue (embedding gradients) as the dense array it stands for."""
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):
        out = np.zeros(value.dense_shape, dtype=value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return np.asarray(value)
