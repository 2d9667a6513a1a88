"""Where a forward pass differs: padding, strides and window sizes (the convolutions and poolings of both sides'
graphs, TF1's and TF2's step traced, compared in order) and the first Keras layer whose output no TF1 activation
holds."""

from pathlib import Path

import numpy as np
import pytest

from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.pair import FAILED, PairOptions, pair_scripts
from tfcompare.scripts.pair.activations import parting
from tfcompare.scripts.pair.windows import window_causes

BLIND = Path(__file__).parent / "data" / "pairs" / "blind"


def _w(kind, padding="SAME", strides=(1, 1), window=(5, 5), out=(28, 28), type_="Conv2D"):
    return {"kind": kind, "type": type_, "padding": padding, "strides": list(strides), "window": list(window),
            "out": list(out), "scope": "m/conv", "site": "line 3"}


def _records(one, two):
    a, b = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    a.windows, b.windows = one, two
    return a, b


def test_the_first_window_that_differs_is_named_with_the_keras_setting_that_is_tf1s():
    pool = dict(type_="MaxPool", window=(2, 2), strides=(2, 2), out=(14, 14))
    one = [_w("conv"), _w("pool", **pool), _w("conv", out=(14, 14))]
    strided = [_w("conv", strides=(2, 2), out=(14, 14)), _w("pool", **{**pool, "out": (7, 7)}), _w("conv")]
    assert window_causes(*_records(one, strided)) == [
        "convolution 1 of 2 (TF1 Conv2D at line 3, TF2 Conv2D in m/conv at line 3): strides 1x1 in TF1, 2x2 in TF2 "
        "(its output 28x28 in TF1, 14x14 in TF2); Keras strides=1 is what TF1 does"]
    bigger = [_w("conv"), _w("pool", **{**pool, "window": (3, 3)}), _w("conv", out=(14, 14))]
    text, = window_causes(*_records(one, bigger))
    assert text.startswith("pooling 1 of 1 ") and "window 2x2 in TF1, 3x3 in TF2; Keras pool_size=2 is" in text
    reshaped = [_w("conv"), _w("pool", **pool), _w("conv", out=(12, 12))]
    text, = window_causes(*_records(one, reshaped))
    assert "convolution 2 of 2" in text and "its output is 14x14 in TF1, 12x12 in TF2 with the same padding" in text
    assert window_causes(*_records(one, [dict(w) for w in one])) == []  # the same: nothing
    assert window_causes(*_records(one, one[:2])) == []  # other numbers of ops: the op counts say it, not this


@pytest.mark.parametrize("tf2, words", [
    ("cnn_pad_tf2_bug.py", "convolution 2 of 2 (TF1 Conv2D at line 38, TF2 Conv2D in sequential_1/conv2d_1_2 at line 59): "
                           "padding SAME in TF1, VALID in TF2 (its output 14x14 in TF1, 10x10 in TF2); Keras "
                           "padding='same' is what TF1 does"),
    ("cnn_stride_tf2_bug.py", "pooling 1 of 2 (TF1 MaxPool at line 42, TF2 MaxPool in sequential_1/max_pooling2d_1 at "
                              "line 59): strides 2x2 in TF1, 1x1 in TF2 (its output 14x14 in TF1, 28x28 in TF2); "
                              "Keras strides=2 is what TF1 does"),
])
def test_blind_padding_and_stride_mistakes_cannot_pair_and_the_window_that_differs_is_named(tf2, words):
    """Written by a helper who had not seen tfcompare: an activation of another shape makes the dense kernels
    unpairable (exit 3); the cause is the one convolution or pooling planted."""
    result = pair_scripts(BLIND / "cnn_pad_tf1.py", BLIND / tf2, PairOptions(steps=1))
    assert result.status == FAILED, "\n".join(result.lines())
    causes = [f.text for f in result.findings if f.kind == "cause"]
    assert causes == [words], causes



def _acts(rec, side, facts, values):
    rec.activations = facts
    rec.arrays.update({f"act/{side}/{i}": np.asarray(v, np.float32) for i, v in enumerate(values)})


def test_the_first_layer_output_no_tf1_activation_holds_is_where_the_forward_passes_part():
    a, b = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    x = np.linspace(-1, 1, 12).reshape(3, 4)
    _acts(a, "tf1", [{"name": n, "type": t, "site": "line 9", "shape": [3, 4]} for n, t in
                     [("MatMul", "MatMul"), ("Relu", "Relu"), ("out", "MatMul")]], [x, np.maximum(x, 0), 2 * x])
    layer = lambda name, kind: {"name": name, "type": kind, "site": "line 4", "shape": [3, 4]}  # noqa: E731
    _acts(b, "tf2", [layer("dense", "Dense"), layer("dense_1", "Dense")], [np.maximum(x, 0), np.tanh(2 * x)])
    text, = parting(a, b)
    assert text.startswith("where the forward passes part: dense_1 (Dense, line 4) is the first TF2 layer whose "
                           "output in the first step no TF1 activation holds (the layer before it, dense (Dense, "
                           "line 4), matches TF1's Relu); the closest TF1 tensor of its size is "), text
    b.arrays["act/tf2/1"] = (2 * x).astype(np.float32) * (1 + 5e-5)  # within 1e-4: TF1's
    assert parting(a, b) == ["every Keras layer output of TF2's first step (2) is one TF1 computes on the same batch: "
                             "the forward passes part after the model, in the loss"]
    b.activations = []
    assert parting(a, b) == []  # nothing kept (not Keras): nothing said
