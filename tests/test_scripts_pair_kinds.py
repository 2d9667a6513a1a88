"""pair on kinds of code written outside the project (tests/data/pairs/blind, 2026-12-05): a weight average kept
after each step, a sparse embedding gradient through Adam, a fed RNN state, gradient accumulation. Each verdict is
checked against what the scripts compute, found by hand: a weight average is state the step changes (it was left
out, so a rewrite whose averages start at zero agreed), Keras 3's Adam computes otherwise than TF1's on a sparse
gradient with repeated rows (said, and densifying it agrees), and an update of gradients gathered in earlier runs
cannot be observed (said as tfcompare's limit, not as the script's failure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli

PAIRS = Path(__file__).parent / "data" / "pairs"
BLIND = PAIRS / "blind"

# the blind embedding rewrite with its gradients made dense before Adam (the fix pair names), made in a copy
_DENSE = ("    optimizer.apply_gradients(zip(grads, model.trainable_variables))",
          "    grads = [tf.convert_to_tensor(g) for g in grads]\n"
          "    optimizer.apply_gradients(zip(grads, model.trainable_variables))")

# (TF1 script, TF2 script, exit code, status, texts the decisive findings (or the error) must hold)
_KINDS = [
    ("weight_ema_tf1.py", "weight_ema_tf2.py", 0, "agree", []),
    ("weight_ema_tf1.py", "weight_ema_tf2_bug.py", 1, "differ",
     ["non-trainable state mlp/W1/ExponentialMovingAverage (10, 32) (TF1) vs W1_ema (TF2) after step 1",
      "they start from other values"]),
    ("embedding_adam_tf1.py", "embedding_adam_tf2.py", 1, "differ",
     ["the gradient of embedding is sparse (tf.IndexedSlices, an embedding lookup's) and repeats rows",
      "Keras's Adam squares each slice and sums the squares"]),
    ("embedding_adam_tf1.py", "embedding_adam_tf2.py+dense", 0, "agree", []),
    ("stateful_rnn_tf1.py", "stateful_rnn_tf2.py", 0, "agree", []),
    ("stateful_rnn_tf1.py", "stateful_rnn_tf2_bug.py", 1, "differ", ["the difference starts at step 2"]),
    ("grad_accumulation_tf1.py", "grad_accumulation_tf2.py", 3, "failed",
     ["the TF1 script runs its train op without feeding Placeholder, Placeholder_1, which its loss reads",
      "gradient accumulation?"]),
]


@pytest.mark.parametrize("tf1, tf2, code, status, texts", _KINDS, ids=[f"{a[:-3]}-{b.replace('.py', '')}" for a, b, *_ in _KINDS])
def test_a_kind_of_code_gets_the_verdict_its_scripts_compute(tf1, tf2, code, status, texts, tmp_path):
    new = BLIND / tf2
    if tf2.endswith("+dense"):
        text = (BLIND / tf2.removesuffix("+dense")).read_text()
        assert text.count(_DENSE[0]) == 1
        new = tmp_path / "embedding_adam_tf2_dense.py"
        new.write_text(text.replace(*_DENSE))
    result = CliRunner().invoke(cli, ["pair", str(BLIND / tf1), str(new), "--no-timing", "--json",
                                      "--logdir", str(tmp_path / "logs")])
    assert result.exit_code == code, result.output
    report = json.loads(result.output[result.output.index("{"):])
    assert report["status"] == status, (report["error"], report["findings"])
    said = " | ".join([report["error"]] + [f["text"] for f in report["findings"]])
    assert all(t in said for t in texts), said
    if status == "agree":
        assert report["checks"] and all(c["loss_ok"] and c["weights_ok"] for c in report["checks"])
    if status == "failed":
        assert report["checks"] == [] and "failed before its first training step" not in report["error"]


def test_converts_rewrite_of_an_embedding_through_adam_densifies_its_gradient_and_is_proven(tmp_path):
    """convert writes what the embedding pair's finding says: the step makes the sparse gradient dense before
    Keras's Adam, so a row the batch holds twice updates as TF1's did; pair proves the rewrite (without the three
    lines it is the blind TF2 script's DIFFER)."""
    from tfcompare.scripts.convert import AGREE, ConvertOptions, convert_script

    new = tmp_path / "embedding_tf2.py"
    result = convert_script(BLIND / "embedding_adam_tf1.py", new, ConvertOptions(levers=()))
    assert result.status == AGREE and result.todos == [], result.lines()
    text = new.read_text()
    assert "tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in gradients" in text
    assert text.index("gradients = tape.gradient") < text.index("tf.convert_to_tensor(g)") < \
        text.index("optimizer.apply_gradients")
