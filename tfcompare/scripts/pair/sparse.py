"""A sparse gradient with repeated rows (an embedding lookup of a batch that holds a token twice): TF1's
optimizers sum a row's slices before the update (`_apply_sparse_duplicate_indices`), so they compute what the
dense gradient computes; Keras 3's Adam, AdamW, Nadam, RMSprop, Adagrad, Adadelta and Ftrl square each slice and
sum the squares, so their second moments differ where a row repeats (measured on TF 2.21: Adam's velocity
(1-beta_2) * (1 + 1) for a row given 1 twice, TF1's (1-beta_2) * 2**2). SGD, Adamax and Lion compute alike."""

from __future__ import annotations

from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["SQUARING", "sparse_repeats"]

SQUARING = {"adam", "adamw", "nadam", "rmsprop", "adagrad", "adadelta", "ftrl"}  # Keras 3 class names, lowered


def sparse_repeats(tf1: SideRecord, tf2: SideRecord, pairs) -> list[Finding]:
    """Why an update differs where the loss and gradients agree: TF2's sparse gradient with repeated rows, through
    a Keras optimizer that squares slices one by one."""
    kind = str((tf2.optimizer_config or {}).get("class_name", "")).lower()
    if kind not in SQUARING:
        return []
    hit = [(tf1.var(a).name, tf2.sparse[b]) for a, b, _ in pairs if tf2.sparse.get(b, {}).get("repeated")]
    if not hit:
        return []
    name, seen = hit[0]
    others = f" (and {len(hit) - 1} more)" if len(hit) > 1 else ""
    return [Finding("sparse", f"the gradient of {name}{others} is sparse (tf.IndexedSlices, an embedding lookup's) and "
                              f"repeats rows: {seen['repeated']} of its {seen['slices']} slices at step 1 are rows "
                              f"given before. Keras's {tf2.optimizer_config['class_name']} squares each slice and "
                              "sums the squares, TF1's optimizer sums a row's slices first (as a dense gradient "
                              "does), so their second moments differ on those rows; to compute as TF1, densify "
                              "the gradient before the update: apply_gradients((tf.convert_to_tensor(g), v) for "
                              "g, v in ...)")]
