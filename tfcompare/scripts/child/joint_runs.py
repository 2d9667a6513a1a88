"""A Session.run of several train ops that read each other's variables (a GAN's `sess.run([train_D, train_G])`):
what TF1's graph means by it, and TF1's record made to hold exactly that.

Each train op writes its own variables (the discriminator's update writes the discriminator, the generator's
the generator) and reads the other's: the generator's gradient flows through the discriminator. The graph puts no
order between one op's reads and the other's writes, so it means both gradients from the run's starting weights,
both updates applied (what a TF2 step computing both losses under two tapes does). Under TF1's ref variables the
run is a race: measured on a small GAN, 45 of 200 runs computed some gradient from weights the other update had
already changed. So the TF1 child records the script's own runs (their batches and draws), and after the K steps
`reference` replays them from the same start without the race (each group's gradients read first, then its updates
applied with those gradients fed) and puts that into the record: the steps compared are TF1's graph computed as it
reads, and whether the script's own runs raced is said. The floor's replays (`noise.measure`) run each group the
same way (`noise.replay_unit`), so the difference between the two readings is never counted as noise.

A group is recorded as consecutive steps, one per train op in the order the script made them; a step's weights
after it hold the later ops' variables as the run found them (`train_ops.written`: what a train op writes).
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.child import slots
from tfcompare.scripts.child.noise import ROUNDING, dense, relative, replay_unit, restore, units
from tfcompare.scripts.child.train_ops import entries

__all__ = ["settle", "reference"]


def settle(probe, sess) -> bool:
    """After the K steps, before the floor: where the record holds runs of several train ops (`record.joint`), the
    steps replayed without the race (`reference`); False (the record then unpairable) where they cannot be."""
    rec = probe.record
    if not rec.joint:
        return True
    try:
        why = ("its variables could not be read before the first step" if probe._start is None else
               "its losses draw random numbers live (a replay draws others)" if rec.repeat else
               reference(probe, sess, [entries(probe.found)[i] for i in rec.step_ops]))
    except Exception as exc:
        why = f"its steps could not be replayed: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    if why:
        rec.status = "unpairable"
        rec.error = ("the TF1 script runs train ops that read each other's variables in one Session.run, with no "
                     f"order between them (a race under TF1's ref variables), and {why}; pair gives no verdict")
    return not why


def reference(probe, sess, entries_of: list) -> str:
    """Replay the K steps from the start without the race and make them the record (losses, gradients, weights,
    slots, counters); "" or why it cannot be (then the record is unpairable). `entries_of[k]`: step k's train op
    entry."""
    rec = probe.record
    keys = [v.key for v in rec.variables]
    if rec.state:
        return ("its steps also update non-trainable state (batch-norm statistics), which the race reaches too: "
                "TF1's run cannot be replayed without it")
    if any(not np.array_equal(rec.arrays[f"before/{k}/{key}"], rec.arrays[f"after/{k - 1}/{key}"], equal_nan=True)
           for k in range(1, rec.steps) for key in keys):
        return "the script changes the weights between its steps (an assign of its own): TF1's run cannot be replayed"
    restore(sess, probe._start)
    raced = None
    for unit in units(rec):
        ops = [entries_of[k] for k in unit]
        results = replay_unit(probe, sess, ops, probe._fed[unit[0]])
        counter = probe._run(sess, probe._counter) if probe._counter is not None else None
        for k, entry, (loss, grads, after, slot_values, _) in zip(unit, ops, results):
            names = [v.op.name for _, v in entry["grads_and_vars"]]
            gap = max([relative(rec.arrays[f"grad/{k}/{n}"], dense(g)) for n, g in zip(names, grads)] or [0.0])
            if raced is None and len(unit) > 1 and gap > ROUNDING:
                raced = (k, gap)
            rec.losses[k] = float(np.asarray(loss).sum())
            for n, g in zip(names, grads):
                rec.arrays[f"grad/{k}/{n}"] = dense(g)
            if k:
                for key in keys:
                    rec.arrays[f"before/{k}/{key}"] = rec.arrays[f"after/{k - 1}/{key}"]
            for key, value in zip(keys, after):
                rec.arrays[f"after/{k}/{key}"] = np.asarray(value)
            for (name, key, _), value in zip(probe.slots, slot_values):
                rec.arrays[slots.key(name, k, key)] = np.asarray(value)
            if counter is not None:
                rec.arrays[f"counter/{k}"] = np.asarray(counter)
    groups = ", ".join("+".join(str(k + 1) for k in group) for group in units(rec) if len(group) > 1)
    if groups and raced is None:  # none where the steps stopped inside the first run of several train ops
        rec.notes.append(f"TF1's own runs of several train ops (steps {groups}) computed every gradient from the "
                         "run's starting weights (no race in these steps); compared as replayed from the same start")
    elif groups:
        rec.notes.append(f"TF1's own runs of several train ops (steps {groups}) raced at step {raced[0] + 1}: a "
                         "gradient read weights another train op of the same Session.run had already updated "
                         f"({raced[1]:.2g} relative from the run's "
                         "starting weights; ref variables put no order between them). Compared with TF1's graph "
                         "as it reads, replayed from the same start on the same batches: every gradient of a run "
                         "from its starting weights")
    return ""
