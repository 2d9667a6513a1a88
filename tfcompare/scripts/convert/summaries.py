"""TF1 summaries fetched in a `Session.run` (`tf.summary.scalar/histogram`, collected by `merge_all()`), read from
the graph so the TF2 script writes the same tags at the same steps with `tf.summary` on a `create_file_writer`.

A fetched merged summary becomes a dict tag -> (TF2 summary function, value) computed where TF1 computed it; the
script's `FileWriter.add_summary(summary, step)` becomes `add_summary(writer, summary, step)`, written into the
script (`HELPER`). Other summary kinds in the graph (image, audio, text, tensor) are not translated: the fetch stays a
TODO (an image summary of a value computed after training is: `eager_tail`).
"""

from __future__ import annotations

import dataclasses

from tfcompare.core.graphs import static_value

__all__ = ["Summary", "KINDS", "HELPER", "find"]

KINDS = {"ScalarSummary": "scalar", "HistogramSummary": "histogram"}  # TF1 op type -> tf.summary function
_MERGE = "MergeSummary"

HELPER = '''
def add_summary(writer, summary, step):
    """TF1's FileWriter.add_summary of a fetched summary: each summary op it collected (tag ->
    (tf.summary.scalar, histogram or image, the value TF1's op summarised in that step)) written
    with the same tag at the same step."""
    with writer.as_default():
        for tag, (write, value) in summary.items():
            write(tag, value, step=step)
'''


@dataclasses.dataclass
class Summary:
    tag: str
    kind: str  # "scalar" or "histogram"
    value: object  # the tf.Tensor the TF1 summary op summarised
    op: object  # the TF1 summary op (its source line is dropped from the TF2 script)


def find(target, tf) -> list[Summary] | None:
    """The summaries a fetched tensor writes, or None when it is no summary or has a kind not translated."""
    ops = [target.op] if target.op.type != _MERGE else [t.op for t in target.op.inputs]
    if target.op.type != _MERGE and target.op.type not in KINDS:
        return None
    found = []
    for op in ops:
        tag = static_value(op.inputs[0]) if op.type in KINDS else None
        if tag is None or getattr(tag, "ndim", 0) != 0:
            return None  # an image summary, or a tag computed at run time
        tag = tag.item() if hasattr(tag, "item") else tag
        found.append(Summary(tag.decode() if isinstance(tag, bytes) else str(tag), KINDS[op.type], op.inputs[1], op))
    return found
