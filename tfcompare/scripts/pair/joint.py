"""TF2's steps put in the form of TF1's record where TF1 ran several train ops in one Session.run (a GAN's
`sess.run([train_D, train_G])`, see `child.joint_runs`).

TF1's graph gives such a run no order: its record lists the run's train ops as consecutive steps in the order the
script made them, each step's weights after it holding the later ops' variables as the run found them. A TF2 step
that computes the same takes both gradients from the same weights and applies both, in any order: TensorFlow's
GAN tutorial takes the generator's gradient first, a rewrite may apply the discriminator's update first. So, per
TF1 group, TF2's steps in the same places are matched to TF1's by the variables each trains, and each one's weights
and slots after it are rebuilt the way TF1's are: the values TF2 had after the group for the variables trained by
that step and the ones before it in TF1's order, the values before the group for the rest. Nothing a step computes
(its loss, its gradients) is rebuilt, only moved to its place.
"""

from __future__ import annotations

from tfcompare.scripts.child.record import SideRecord

__all__ = ["align"]

_OTHER_LOSS = "not compared: TF2's first gradient is another train op's loss than TF1's first step's"


def align(tf1: SideRecord, tf2: SideRecord, pairs) -> list[str]:
    """Rewrite `tf2`'s steps of every TF1 group in place; returns notes (a group whose steps TF2 took in another
    order)."""
    mine = {b: a for a, b, _ in pairs}
    notes = []
    for whole in tf1.joint:
        group = [k for k in whole if k < min(tf1.steps, tf2.steps)]
        if not group:
            continue
        wanted = [frozenset(tf1.weights("grad", k)) for k in group]
        found = [frozenset(mine.get(key, f"TF2 {key}") for key in tf2.weights("grad", k)) for k in group]
        order = _matching(wanted, found)
        if order is None and len(group) < len(whole):  # cut by --steps where TF2 takes the run's steps otherwise
            notes.append(f"the steps stop inside TF1's run {'+'.join(str(k + 1) for k in whole)}, whose train ops "
                         f"TF2 takes in another order: steps {group[0] + 1} on are not compared")
            for rec in (tf1, tf2):
                del rec.losses[group[0]:]
            if group[0] == 0:
                tf2.ops, tf2.ops_note = None, _OTHER_LOSS
            break
        if order is None:
            continue  # other variables trained: order_findings says so
        if order != list(range(len(group))):
            if group[0] == 0:  # TF2's forward ops were read from its first gradient's loss: another one than TF1's
                tf2.ops, tf2.ops_note = None, _OTHER_LOSS
            notes.append(f"TF2 takes the steps of TF1's run {'+'.join(str(k + 1) for k in group)} in another order "
                         f"({', '.join(str(group[i] + 1) for i in order)}): TF1's graph gives them none, so each is "
                         "compared with the TF1 step that trains the same variables")
        _rebuild(tf2, group, order, [set(found[i]) for i in order], mine)
    return notes


def _matching(wanted: list, found: list) -> list[int] | None:
    """For each of TF1's steps, the TF2 step of the group that trains the same variables; None if not one each."""
    order = []
    for w in wanted:
        hits = [i for i, f in enumerate(found) if f == w and i not in order]
        if not hits:
            return None
        order.append(hits[0])
    return order


def _rebuild(tf2: SideRecord, group: list[int], order: list[int], trains: list[set], mine: dict) -> None:
    arrays = tf2.arrays
    first, last = group[0], group[-1]
    moved = {}  # what each step computed, to its TF1 place
    for place, i in zip(group, order):
        source = group[i]
        moved[place] = ({k: v for k, v in arrays.items() if k.startswith(f"grad/{source}/")}, tf2.losses[source],
                        tf2.step_ops[source] if source < len(tf2.step_ops) else None,
                        tf2.learning_rates[source] if source < len(tf2.learning_rates) else None)
    for place, (grads, loss, op, rate) in moved.items():
        for key in [k for k in arrays if k.startswith(f"grad/{place}/")]:
            del arrays[key]
        arrays.update({f"grad/{place}/{k.split('/', 2)[2]}": v for k, v in grads.items()})
        tf2.losses[place] = loss
        if op is not None:
            tf2.step_ops[place] = op
        if rate is not None:
            tf2.learning_rates[place] = rate
    start = {k.split("/", 2)[2]: v for k, v in arrays.items() if k.startswith(f"before/{first}/")}
    end = {k.split("/", 2)[2]: v for k, v in arrays.items() if k.startswith(f"after/{last}/")}
    slot_end = _slots(arrays, last)
    slot_start = _slots(arrays, first - 1 if first else "init")
    done: set = set()
    for place, trained in zip(group, trains):
        done |= {key for key in end if mine.get(key) in trained}
        for key in end:
            if key in start:
                arrays[f"after/{place}/{key}"] = end[key] if key in done else start[key]
        for (name, key), value in slot_end.items():
            at = f"slot:{name}/{place}/{key}"
            if key in done:
                arrays[at] = value
            elif (name, key) in slot_start:
                arrays[at] = slot_start[(name, key)]
            else:
                arrays.pop(at, None)  # no slot yet before its optimizer's first update (Keras makes them then)


def _slots(arrays: dict, step) -> dict[tuple[str, str], object]:
    out = {}
    for k, v in arrays.items():
        head, _, rest = k.partition("/")
        if head.startswith("slot:"):
            at, _, key = rest.partition("/")
            if at == str(step):
                out[(head[len("slot:"):], key)] = v
    return out
