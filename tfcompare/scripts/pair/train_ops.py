"""Several optimizers' steps compared (a GAN's discriminator and generator): the order in which each side's steps
run its optimizers, and what each step trains.

TF1's record says which train op each step ran (`step_ops`, indices among the script's train ops) and TF2's which
Keras optimizer applied it (indices in order of first use). Both are read in order of first appearance; a step
whose optimizer comes in another place, or that trains other variables than TF1's step in the same place, is a
difference on its own: the steps then compare one network's update with the other's.
"""

from __future__ import annotations

import math

from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["several", "order_findings"]


def several(record: SideRecord) -> bool:
    """Whether the record's steps ran more than one optimizer."""
    return len(set(record.step_ops)) > 1


def _first_seen(sequence: list[int]) -> list[int]:
    order: dict[int, int] = {}
    return [order.setdefault(v, len(order)) for v in sequence]


def order_findings(tf1: SideRecord, tf2: SideRecord, pairs) -> list[Finding]:
    """A decisive finding at the first step whose optimizer or trained variables differ between the sides (also
    where each side's steps run one optimizer: a rewrite that calls only the generator's step where TF1 runs the
    critic's trains other variables)."""
    steps = min(tf1.steps, tf2.steps, len(tf1.step_ops), len(tf2.step_ops))
    one, two = _first_seen(tf1.step_ops[:steps]), _first_seen(tf2.step_ops[:steps])
    multi = several(tf1) or several(tf2)
    if multi and one != two:
        return [Finding("optimizers", f"the steps run their optimizers in another order: TF1 {_text(one)}, TF2 "
                                      f"{_text(two)} (each number an optimizer, in order of first use)", True)]
    mine = {b: a for a, b, _ in pairs}
    for k in range(steps):
        trained1 = set(tf1.weights("grad", k))
        trained2 = {mine.get(key, f"TF2 {key}") for key in tf2.weights("grad", k)}
        if trained1 != trained2:
            only1 = sorted(tf1.var(a).name for a in trained1 - trained2)
            keys1 = {v.key for v in tf1.variables}
            only2 = sorted(tf1.var(a).name if a in keys1 else a for a in trained2 - trained1)
            said = "; ".join(f"only {side}'s trains {_names(names)}" for side, names in (("TF1", only1), ("TF2", only2))
                             if names)
            return [Finding("optimizers", f"step {k + 1} trains other variables in TF2 than in TF1 ({said}): the "
                                          "steps in the same place run other optimizers, or their var_lists differ",
                            True)]
    if not multi:  # one optimizer's settings are compared as always
        return []
    rates = [(k, a, b) for k, (a, b) in enumerate(zip(tf1.learning_rates[:steps], tf2.learning_rates[:steps]))
             if a is not None and b is not None and not math.isclose(a, b, rel_tol=1e-6)]
    if rates:  # each optimizer's own rate (the first one's settings are compared with TF1's as for one optimizer)
        k, a, b = rates[0]
        return [Finding("learning_rate", f"learning rate of step {k + 1} (optimizer {one[k] + 1}): {a:.6g} in TF1, "
                                         f"{b:.6g} in TF2", True)]
    return []


def _names(names: list[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def _text(order: list[int]) -> str:
    return " ".join(str(i + 1) for i in order)
