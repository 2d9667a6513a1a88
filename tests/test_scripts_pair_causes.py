"""Causes that name the mistake when the first loss differs: TF2's first loss recomputed from TF1's own logits,
labels and regularisation term under each known mistake (`pair.causes`), named only when one gives it exactly.

The label and L2 pairs in tests/data/pairs/blind/ were written by someone who had not seen tfcompare.
"""

from pathlib import Path

import keras
import numpy as np
import pytest

from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts
from tfcompare.scripts.pair.causes import loss_causes

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"
_LOGITS = np.random.default_rng(2).normal(size=(16, 5)).astype(np.float32)
_LABELS = np.arange(16) % 5


def _records(tf2_loss: float, *, reg: float = 0.0, labels=_LABELS, kind: str = "sparse"):
    onehot = np.eye(5, dtype=np.float32)[_LABELS]
    ce = float(np.mean(keras.losses.categorical_crossentropy(
        onehot if kind == "sparse" else labels, _LOGITS, from_logits=True)))
    tf1 = SideRecord("tf1", "a.py", losses=[ce + reg], reduction_ratio=1.0, cross_entropy=kind)
    tf1.arrays = {"cause/logits": _LOGITS, "cause/labels": labels}
    if reg:
        tf1.arrays["cause/regularisation"] = np.asarray(reg)
    return tf1, SideRecord("tf2", "b.py", losses=[tf2_loss]), ce, onehot


def test_each_known_mistake_is_named_from_tf1s_logits_and_only_that_one():
    tf1, _, ce, onehot = _records(0.0)
    axis0 = float(np.mean(-np.sum(onehot * np.asarray(keras.ops.log_softmax(_LOGITS, axis=0)), axis=1)))
    smoothed = float(np.mean(keras.losses.categorical_crossentropy(onehot, _LOGITS, from_logits=True,
                                                                   label_smoothing=0.2)))
    for loss, words in ((axis0, "other axis"), (smoothed, "label smoothing 0.2 in TF2")):
        said = loss_causes(tf1, SideRecord("tf2", "b.py", losses=[loss]))
        assert len(said) == 1 and words in said[0], said
    assert loss_causes(tf1, SideRecord("tf2", "b.py", losses=[ce * 1.01])) == []  # no known mistake gives it


@pytest.mark.parametrize("ratio, words", [(0.0, "TF2 adds no regularisation term"), (0.5, "half TF1's"),
                                         (2.0, "l2(c/2) is TF1's")])
def test_a_regularisation_term_k_times_tf1s_is_named_with_its_factor(ratio, words):
    tf1, _, ce, _ = _records(0.0, reg=0.125)
    said = loss_causes(tf1, SideRecord("tf2", "b.py", losses=[ce + ratio * 0.125]))
    assert len(said) == 1 and words in said[0] and f"x{ratio:g}" in said[0]


def test_smoothed_labels_in_tf1_are_read_from_the_labels_its_cross_entropy_gets():
    smooth = np.eye(5, dtype=np.float32)[_LABELS] * 0.9 + 0.1 / 5
    tf1, _, _, onehot = _records(0.0, labels=smooth, kind="dense")
    hard = float(np.mean(keras.losses.categorical_crossentropy(onehot, _LOGITS, from_logits=True)))
    [said] = loss_causes(tf1, SideRecord("tf2", "b.py", losses=[hard]))
    assert "label smoothing 0.1 in TF1" in said


@pytest.mark.parametrize("tf2, words", [
    ("labels_tf2_bug_logits.py", "from_logits=True"),
    ("labels_tf2_bug_smoothing.py", "label smoothing 0.1 in TF2"),
])
def test_blind_label_mistakes_differ_with_their_cause(tf2, words):
    result = pair_scripts(BLIND / "labels_tf1.py", BLIND / tf2, PairOptions(steps=1))
    assert result.status == DIFFER
    causes = [f.text for f in result.findings if f.kind == "cause"]
    assert len(causes) == 1 and words in causes[0], "\n".join(result.lines())
    # the model is the same: each of its 3 layer calls (two Dense, the Sequential) holds what TF1 computes
    parting = [f.text for f in result.findings if f.kind == "parting"]
    assert parting == ["every Keras layer output of TF2's first step (3) is one TF1 computes on the same batch: the "
                       "forward passes part after the model, in the loss"], parting


def test_blind_l2_twice_is_named_and_the_faithful_pair_agrees_with_no_cause_line():
    bug = pair_scripts(BLIND / "l2_tf1.py", BLIND / "l2_tf2_bug.py", PairOptions(steps=1))
    assert bug.status == DIFFER
    assert [f.text for f in bug.findings if f.kind == "cause"][0].startswith("TF2's regularisation term is twice")
    faithful = pair_scripts(BLIND / "labels_tf1.py", BLIND / "labels_tf2.py", PairOptions(steps=1))
    assert faithful.status == AGREE and faithful.findings == []
