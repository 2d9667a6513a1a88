"""Does the model compute the same at inference? Each side's loss on the first batch in inference mode, at the
weights and state the first step left (`child.inference_mode`), judged like a step's loss against TF1's noise."""

from __future__ import annotations

from tfcompare.core.equivalence import compare
from tfcompare.scripts.child import noise
from tfcompare.scripts.child.inference_mode import KERAS_HOW
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair.findings import Finding

__all__ = ["inference_findings", "inference_note"]


def inference_findings(tf1: SideRecord, tf2: SideRecord, first_step_ok: bool) -> list[Finding]:
    """Decisive when training mode agrees at step 1 and inference mode does not."""
    if tf1.eval_loss is None or tf2.eval_loss is None or not first_step_ok:
        return []
    floor = tf1.floor[0]["loss"] if tf1.floor else None
    rel = noise.relative(tf1.eval_loss, tf2.eval_loss)
    if compare({"loss": tf2.eval_loss}, {"loss": tf1.eval_loss}, "float32", against="TF1").ok or \
            not noise.beyond(rel, floor):
        return []
    return [Finding("inference", f"in inference mode (TF1: {tf1.eval_how}; TF2: {tf2.eval_how or KERAS_HOW}) "
                                 f"the first batch's loss after step 1 is {tf1.eval_loss:.7g} in TF1, "
                                 f"{tf2.eval_loss:.7g} in TF2 (rel err {rel:.2g}) though training mode agrees: what "
                                 "the model computes at inference differs (a batch norm's moving statistics, a "
                                 "dropout still on, a layer's training flag set by hand)", True)]


def inference_note(tf1: SideRecord, tf2: SideRecord) -> str:
    if tf1.eval_loss is not None and tf2.eval_loss is not None:
        return (f"inference mode compared after step 1 on the first batch (TF1: {tf1.eval_how}; TF2: "
                f"{tf2.eval_how or KERAS_HOW}): loss "
                f"{tf1.eval_loss:.7g} in TF1, {tf2.eval_loss:.7g} in TF2")
    why = tf1.eval_note or tf2.eval_note or "not read"
    return f"inference mode not compared: {why}"
