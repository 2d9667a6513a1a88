"""Start a case from a trained TF1 checkpoint: "does my TF2 model reproduce my trained TF1 model?".

    init_weights=lambda rng: checkpoint_weights("train/model.ckpt-1000", {"w": "dense/kernel", "b": "dense/bias"})

The values go through the same path as seeded weights: both sides load them, the TF2 side through its name map
or weight layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import tensorflow as tf

from tfcompare.core.cases import CaseError

__all__ = ["checkpoint_weights"]


def checkpoint_weights(path: str | Path, names: Mapping[str, str] | Iterable[str]) -> dict[str, np.ndarray]:
    """`{init_weights name: value}` read from a TF1 checkpoint (a prefix such as `model.ckpt-1000`, or the
    folder holding its `checkpoint` file); `names` maps init_weights names to checkpoint names, or lists names
    that are the same on both sides."""
    names = dict(names) if isinstance(names, Mapping) else {n: n for n in names}
    where = str(path)
    if not where.strip():
        raise CaseError("the checkpoint path is empty")
    if Path(where).is_dir():
        latest = tf.train.latest_checkpoint(where)
        if latest is None:
            raise CaseError(f"checkpoint folder {where!r} holds no checkpoint (no 'checkpoint' file naming one)")
        where = latest
    elif not Path(where + ".index").is_file():
        raise CaseError(f"checkpoint {where!r} does not exist (give its prefix, e.g. model.ckpt-1000, whose "
                        f"{Path(where).name}.index is beside it, or its folder)")
    reader = tf.train.load_checkpoint(where)
    shapes = reader.get_variable_to_shape_map()
    missing = {ours: theirs for ours, theirs in names.items() if theirs not in shapes}
    if missing:
        held = ", ".join(f"{n} {tuple(s)}" for n, s in sorted(shapes.items()) if not n.startswith("_"))
        raise CaseError(f"checkpoint {where!r} has no variable {', '.join(repr(t) for t in missing.values())} "
                        f"(mapped from {', '.join(repr(o) for o in missing)}); it holds: {held}")
    return {ours: np.asarray(reader.get_tensor(theirs)) for ours, theirs in names.items()}
