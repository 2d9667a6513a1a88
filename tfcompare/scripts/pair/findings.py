"""A finding of `pair`: one cause, checked on its own, and whether it decides the verdict."""

from __future__ import annotations

import dataclasses

__all__ = ["Finding"]


@dataclasses.dataclass
class Finding:
    """A cause, checked on its own. `decisive`: it makes the pair DIFFER even when every step agrees (the scripts
    start from or are set to something else: an initialisation, inputs, an optimizer setting)."""

    kind: str  # optimizer | learning_rate | setting | reduction | extra_op | initialisation | inputs | where | ...
    text: str
    decisive: bool = False
