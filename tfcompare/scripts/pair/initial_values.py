"""What each side starts from: every paired variable's initialisation as each script draws it.

The steps are compared from TF1's initial values on both sides, so they cannot show a rewrite that would start
elsewhere on its own: TF2's own drawn values are tested against TF1's scheme (`initialisation.differs`), and an
LSTM's forget-gate bias, which TF1 adds at run time and Keras draws, is named with the Keras setting that is TF1's.
"""

from __future__ import annotations

import numpy as np

from tfcompare.scripts.child import initialisation
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["init_findings"]


def init_findings(tf1: SideRecord, tf2: SideRecord, pairs) -> list[Finding]:
    """Each paired variable's own initialisation on each side (the steps start both from TF1's values)."""
    out = []
    for key1, key2, _ in pairs:
        a, b = tf1.var(key1), tf2.var(key2)
        if f"init/{key1}" not in tf1.arrays or f"init/{key2}" not in tf2.arrays:
            continue
        why = initialisation.differs(tf1.arrays[f"init/{key1}"], tf2.arrays[f"init/{key2}"], a.scheme)
        forget = _forget_gate(a, tf1.arrays[f"init/{key1}"], tf2.arrays[f"init/{key2}"])
        if forget:
            out.append(Finding("initialisation", f"{a.name}: {forget}", True))
            continue
        if why and a.layout and (not a.name.endswith(":bias") or "reset_after" in a.layout):
            # a cell's kernels in another layout: no Keras setting draws TF1's distribution (its bias is judged:
            # Keras's unit_forget_bias, or a GRU's gate bias, set it)
            out.append(Finding("initialisation", f"initialisation of {a.name} {tuple(a.shape)} ({b.name}, {b.site}, "
                                                 f"{initialisation.scheme_text(b.scheme)}): {why}; not judged: TF1 "
                                                 "draws the cell's kernels over [x; h] as one matrix, Keras draws "
                                                 "kernel and recurrent_kernel apart (no setting makes them the "
                                                 "same); a run from scratch starts from other values"))
        elif why:
            start = ("TF2's steps start from those values" if (b.scheme or {}).get("scheme") == "assigned" else
                     "the steps were compared from TF1's values on both sides")
            out.append(Finding("initialisation", f"initialisation of {a.name} {tuple(a.shape)}: TF1 "
                                                 f"{initialisation.scheme_text(a.scheme)}, TF2 ({b.name}, {b.site}) "
                                                 f"{initialisation.scheme_text(b.scheme)}: {why}; {start}", True))
    return out


def _forget_gate(a, one: np.ndarray, two: np.ndarray) -> str:
    """An LSTM's forget-gate bias that starts elsewhere: TF1 adds `forget_bias` when it runs (seen in the Keras
    layout's bias), Keras starts it at 1 with `unit_forget_bias=True` (its default) and at 0 without."""
    if not (a.layout.startswith("layout: TF1 LSTMCell") and a.name.endswith(":bias")) or one.shape != two.shape:
        return ""
    h = one.shape[-1] // 4
    f1, f2 = one[h:2 * h], two[h:2 * h]
    if not (np.all(f1 == f1[0]) and np.all(f2 == f2[0])) or f1[0] == f2[0]:
        return ""
    fix = ("unit_forget_bias=True (the Keras default) is TF1's" if f1[0] == 1 else
           "unit_forget_bias=False is TF1's" if f1[0] == 0 else
           f"a forget-gate bias initialised at {f1[0]:g} is TF1's")
    return (f"the forget gate starts at bias {f1[0]:g} in TF1 (its cell's forget_bias, added when it runs), at "
            f"{f2[0]:g} in TF2: {fix}; the steps were compared from TF1's values on both sides")
