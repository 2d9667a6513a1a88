"""What a resolved reference means for a move to TF2, and the TF2 idiom that replaces it.

The class comes from the installed TensorFlow, not from a table: a name that resolves in the TF2
namespace runs; one that resolves only under `tf.compat.v1` runs in graph mode only; one whose lookup
says "not available with Keras 3" needs the legacy Keras extra; one that resolves nowhere is removed.
Where TF2 has the same name for a different function (TF1's `nn.dropout(keep_prob)` vs TF2's
`nn.dropout(rate)`), the behaviour differs. The idioms and the known default changes are the one
hand-written part: what to write instead, and what silently changes numbers.
"""

from __future__ import annotations

import inspect

from tfcompare.core.replacements import IDIOMS as _IDIOMS
from tfcompare.core.replacements import lookup
from tfcompare.tools.migrate.references import Reference, Resolution, resolve

__all__ = ["CLASSES", "RUNS", "BEHAVIOUR", "COMPAT_V1", "NEEDS_EXTRA", "REMOVED", "UNPARSABLE", "classify",
           "idiom", "behaviour_note", "relative", "EXTRA_INSTALL"]

# from harmless to worst: --fail-on CLASS fails on that class or any after it
RUNS, BEHAVIOUR, COMPAT_V1, NEEDS_EXTRA, REMOVED, UNPARSABLE = (
    "runs", "behaviour", "compat-v1", "needs-extra", "removed", "unparsable")
CLASSES = (RUNS, BEHAVIOUR, COMPAT_V1, NEEDS_EXTRA, REMOVED, UNPARSABLE)

EXTRA_INSTALL = "pip install tf-keras==2.21.* and set TF_USE_LEGACY_KERAS=1 before TensorFlow is imported"
_V1 = "tensorflow.compat.v1."
_REMOVED_PREFIXES = ("contrib", "estimator", "keras.estimator")


# known default changes that silently move numbers: relative name (prefix) -> what differs
_BEHAVIOUR = {
    "train.AdamOptimizer": "Keras Adam's epsilon default is 1e-7, TF1's 1e-8 (and Keras puts it after the "
                           "bias correction): losses drift unless epsilon is set to match",
    "train.RMSPropOptimizer": "Keras RMSprop defaults differ from TF1's (epsilon 1e-7 vs 1e-10, no momentum "
                              "accumulator unless momentum > 0, centered=False)",
    "train.AdagradOptimizer": "Keras Adagrad's initial_accumulator_value is 0.1 as TF1's, but epsilon 1e-7 is added",
    "set_random_seed": "TF2 random ops draw different numbers for the same seed (a new seeding scheme)",
    "get_variable": "TF1's default initializer is glorot_uniform; keras.layers.Dense is glorot_uniform too, "
                    "but tf.Variable has none: pass initial values explicitly",
    "losses.softmax_cross_entropy": "TF1's default reduction is SUM_BY_NONZERO_WEIGHTS (a mean over non-zero "
                                    "weights); keras.losses reduce by mean over the batch: equal only with unit weights",
    "nn.dropout": "TF1 takes keep_prob, TF2 takes rate = 1 - keep_prob: the same number drops the opposite share",
    "layers.batch_normalization": "TF1 updates moving statistics only through UPDATE_OPS control dependencies; "
                                  "Keras updates them when called with training=True",
}


def relative(path: str) -> str:
    """`tensorflow.compat.v1.train.AdamOptimizer` -> `train.AdamOptimizer`."""
    for prefix in (_V1 + "compat.v1.", _V1, "tensorflow.compat.v2.", "tensorflow."):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path if path != "tensorflow" else ""


def _lookup(table: dict, rel: str) -> str | None:
    return lookup(rel, table)


def idiom(path: str) -> str:
    return _lookup(_IDIOMS, relative(path)) or ""


def behaviour_note(path: str) -> str | None:
    return _lookup(_BEHAVIOUR, relative(path))


# argument names TF renamed with a deprecation alias: dropping them changes nothing a caller sees
_DEPRECATED_ALIASES = {"dim", "keep_dims", "reduction_indices", "dimension", "name", "validate_indices",
                       "output_type", "logits_dimension", "partition_info"}


def _parameters_dropped(v1, v2) -> list[str]:
    """Parameters the TF1 callable takes that its TF2 namesake does not (deprecated aliases aside)."""
    try:
        old = set(inspect.signature(v1).parameters)
        new = set(inspect.signature(v2).parameters)
    except (TypeError, ValueError):
        return []
    return sorted(old - new - _DEPRECATED_ALIASES)


def classify(ref: Reference, res: Resolution) -> tuple[str, str]:
    """(class, why) for one reference, from what the installed TensorFlow says about it."""
    rel = relative(ref.path)
    if rel.split(".")[0] == "python" and ref.path.startswith("tensorflow.python"):
        if res.ok:
            return BEHAVIOUR, "a private module (tensorflow.python.*): it resolves today, with no compatibility promise"
        return REMOVED, f"a private module that no longer exists: {res.error}"
    if not res.ok:
        if "not available with Keras 3" in (res.error or ""):
            return NEEDS_EXTRA, f"{res.error} ({EXTRA_INSTALL})"
        if any(rel == p or rel.startswith(p + ".") for p in _REMOVED_PREFIXES):
            return REMOVED, f"removed from TensorFlow 2 ({res.error})"
        if not ref.path.startswith(_V1):
            v1 = resolve(_V1 + rel) if rel else Resolution(False)
            if v1.ok:
                return COMPAT_V1, "exists only as tf.compat.v1." + rel + ": runs in graph mode, fails under eager"
            if "not available with Keras 3" in (v1.error or ""):
                return NEEDS_EXTRA, f"only tf.compat.v1.{rel}, and {v1.error} ({EXTRA_INSTALL})"
        return REMOVED, f"does not exist in this TensorFlow ({res.error})"
    if ref.path.startswith(_V1) and rel:
        v2 = resolve("tensorflow." + rel)
        if not v2.ok:
            return COMPAT_V1, "only under tf.compat.v1: runs in graph mode (placeholders, Session), not in TF2 style"
        if v2.obj is not res.obj and not ref.is_import:
            dropped = _parameters_dropped(res.obj, v2.obj)
            if dropped:
                return BEHAVIOUR, (f"TF2's tf.{rel} is another function without the parameter(s) "
                                   f"{', '.join(dropped)}: calls written for TF1 mean something else or fail")
            return RUNS, f"resolves to {res.resolved_to}; TF2's tf.{rel} takes the same arguments"
    if rel.split(".")[0] == "keras" and ref.path.startswith(_V1):
        return BEHAVIOUR, "tf.compat.v1.keras now serves Keras 3: TF1's tf.keras semantics are gone"
    return RUNS, f"resolves to {res.resolved_to}"
