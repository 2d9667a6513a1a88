"""Pairing TF1's variables with TF2's: by shape, creation order and order of use; ambiguity is refused.

Within each shape, the n-th variable TF2 creates is provisionally the n-th TF1 created (that is what TF1's
initial values are injected by, at creation); only the variables the first step trains are then paired. After
the first step the order in which each side first uses its variables on the way to the loss must give the same
pairing, or each TF2 variable must bear the name of the TF1 one it is paired with; where neither holds, or where
the shapes do not match one to one, nothing is guessed: both lists are shown.
"""

from __future__ import annotations

from tfcompare.scripts.child.record import Variable

__all__ = ["PairingError", "provisional", "confirm", "confirm_later", "both_lists", "LATER"]

# how a pairing reads when the first step could not confirm it: another optimizer's network (a class built several
# times, each instance trained in turn) that this step neither trains nor reads; `confirm_later` checks it at the
# step that first trains it
LATER = "creation order, unconfirmed: no step compared trains it"


class PairingError(Exception):
    """The variables cannot be paired one to one without guessing; the message holds both lists."""


def provisional(tf1: list[Variable], shape: list[int], n: int) -> Variable | None:
    """The TF1 variable the n-th TF2 variable of `shape` (counting from 0) is provisionally paired with: the n-th
    TF1 variable of that shape in creation order, counted round again when TF2 made more (a model built and then
    replaced by another: the one trained is paired and checked after the first step)."""
    same = [v for v in sorted(tf1, key=lambda v: v.created) if v.shape == list(shape)]
    return same[n % len(same)] if same else None


def confirm(tf1: list[Variable], tf2: list[Variable], pairs: dict[str, str],
            later: frozenset = frozenset()) -> list[tuple[str, str, str]]:
    """(tf1 key, tf2 key, how) for every TF1 variable, or PairingError. `pairs` maps TF2 keys to TF1 keys;
    `later`: TF2 keys of networks the first step neither trains nor reads, each paired as created where TF1 knows
    its partner's order of use (how: LATER), to be checked when a step first trains it (`confirm_later`)."""
    problems = []
    taken = [pairs[v.key] for v in tf2 if v.key in pairs]
    twice = sorted({k for k in taken if taken.count(k) > 1})
    if twice:
        problems.append(f"more TF2 variables than TF1 ones of the same shape are trained (TF1 {', '.join(twice)} "
                        "would be paired twice)")
    unpaired1 = [v for v in tf1 if v.key not in pairs.values()]
    unpaired2 = [v for v in tf2 if v.key not in pairs]
    if unpaired1 or unpaired2:
        left = "; ".join([f"TF1 {v.name} {tuple(v.shape)}" for v in unpaired1]
                         + [f"TF2 {v.name} {tuple(v.shape)}" for v in unpaired2])
        problems.append(f"no variable of the same shape on the other side for: {left}")
    out = []
    by_key1 = {v.key: v for v in tf1}
    for shape in sorted({tuple(v.shape) for v in tf2}, key=str):
        group2 = [v for v in tf2 if tuple(v.shape) == shape and v.key in pairs]
        if len(group2) == 1:
            out.append((pairs[group2[0].key], group2[0].key, "the only variable of its shape"))
            continue
        group1 = [by_key1[pairs[v.key]] for v in group2]
        if all(a.name.removesuffix(":0") == b.name.removesuffix(":0") for a, b in zip(group1, group2)):
            # each TF2 variable has the name of the TF1 one its creation order pairs it with (a rewrite that keeps
            # TF1's names: convert's, or `name_scope`s like TF1's variable scopes): no order of use needed
            out.extend((pairs[v.key], v.key, "creation order and names agree") for v in group2)
            continue
        waiting = [v for v in group2 if v.key in later and v.used is None and by_key1[pairs[v.key]].used is not None]
        if waiting:
            out.extend((pairs[v.key], v.key, LATER) for v in waiting)
            group2 = [v for v in group2 if v not in waiting]
            group1 = [by_key1[pairs[v.key]] for v in group2]
            if len(group2) < 2:
                out.extend((pairs[v.key], v.key, "the only variable of its shape this step uses") for v in group2)
                continue
        if any(v.used is None for v in group1 + group2):
            problems.append(f"{len(group2)} variables of shape {shape} and the order of use is not known for all "
                            "of them")
            continue
        by_use = dict(zip((v.key for v in sorted(group2, key=lambda v: v.used)),
                          (v.key for v in sorted(group1, key=lambda v: v.used))))
        if any(by_use[v.key] != pairs[v.key] for v in group2):
            problems.append(f"{len(group2)} variables of shape {shape}: the creation order pairs them differently "
                            "from the order of use")
            continue
        out.extend((pairs[v.key], v.key, "creation order and order of use agree") for v in group2)
    if problems:
        raise PairingError("cannot pair the variables without guessing: " + "; ".join(problems) + "\n"
                           + both_lists(tf1, tf2))
    return sorted(out, key=lambda p: by_key1[p[0]].created)


def confirm_later(tf1: list[Variable], tf2: list[Variable], pairs: dict[str, str], reads: list[str]) -> str:
    """"" where the TF2 variables of `pairs` (TF2 key -> TF1 key, the LATER ones a step first trains) are read by
    that step in the order TF1's loss of that network uses their partners, within each shape; else the problem."""
    by_key1, by_key2 = {v.key: v for v in tf1}, {v.key: v for v in tf2}
    problems = []
    for shape in sorted({tuple(by_key2[k].shape) for k in pairs}, key=str):
        group = [k for k in pairs if tuple(by_key2[k].shape) == shape]
        if any(k not in reads for k in group) or any(by_key1[pairs[k]].used is None for k in group):
            problems.append(f"{len(group)} variables of shape {shape} and the order of use is not known for all "
                            "of them")
        elif sorted(group, key=reads.index) != sorted(group, key=lambda k: by_key1[pairs[k]].used):
            problems.append(f"{len(group)} variables of shape {shape}: the creation order pairs them differently "
                            "from the order of use")
    return "; ".join(problems)


def both_lists(tf1: list[Variable], tf2: list[Variable]) -> str:
    def lines(side, variables):
        return [f"  {side} #{v.created} {v.label()}, used {'?' if v.used is None else '#' + str(v.used)}"
                for v in sorted(variables, key=lambda v: v.created)]
    return "\n".join(["TF1 variables (creation order):", *lines("TF1", tf1),
                      "TF2 variables (creation order):", *lines("TF2", tf2)])
