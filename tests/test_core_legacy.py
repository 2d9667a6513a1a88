"""TF1 code that uses tf.compat.v1.layers: runs with the `legacy` extra (tf-keras), and without it the error row
says which extra to install. Whichever is installed is tested; the other branch is skipped."""

import importlib.util

import pytest

from tfcompare.core.cases import load_cases_file
from tfcompare.run import harness

from conftest import QUICK_TEST

pytestmark = pytest.mark.legacy  # its results depend on whether tf-keras is installed: CI runs it both ways

HAVE_TF_KERAS = importlib.util.find_spec("tf_keras") is not None


def _run(tmp_path):
    cases = {c.name: c for c in load_cases_file("tests/data/legacy_cases.py")}
    config = harness.RunConfig(cases=tuple(cases), modes=("tf1-graph", "tf2-function"), **QUICK_TEST)
    return {r.mode: r for r in harness.run(config, cases, tmp_path, "legacy").results}


@pytest.mark.skipif(HAVE_TF_KERAS, reason="tf-keras is installed: the legacy layers run (the other test)")
def test_without_the_legacy_extra_the_error_names_it(tmp_path):
    rows = _run(tmp_path)
    row = rows["tf1-graph"]
    assert row.status == "error" and row.error.startswith("case set-up failed: AttributeError: `dense` is not "
                                                          "available with Keras 3.")
    assert "pip install 'tfcompare[legacy]'" in row.error


@pytest.mark.skipif(not HAVE_TF_KERAS, reason="needs the legacy extra: pip install -e '.[legacy]'")
def test_with_the_legacy_extra_tf1_layers_agree_with_keras_3(tmp_path):
    import keras
    import os

    assert os.environ["TF_USE_LEGACY_KERAS"] == "1" and keras.__version__.startswith("3.")
    rows = _run(tmp_path)
    assert rows["tf1-graph"].status == "ok" and rows["tf2-function"].status == "ok", rows["tf2-function"].error


@pytest.mark.skipif(not HAVE_TF_KERAS, reason="needs the legacy extra: pip install -e '.[legacy]'")
def test_a_process_started_by_one_that_imported_tfcompare_knows_tfcompare_set_legacy_keras():
    """A pytest-xdist worker or a user's program that imports tfcompare, then runs tfcompare in a child: the child
    inherits TF_USE_LEGACY_KERAS=1 and must not take it for the user's (its TF2 scripts would get tf.keras 2:
    every convert proof failed so under xdist). A variable the user set stays the user's."""
    import os
    import subprocess
    import sys

    import tfcompare

    if not tfcompare.LEGACY_KERAS_SET_HERE:
        pytest.skip("TF_USE_LEGACY_KERAS was set before the tests started: it is the user's here")
    probe = [sys.executable, "-c", "import tfcompare, os; print(tfcompare.LEGACY_KERAS_SET_HERE, "
                                   "os.environ['TF_USE_LEGACY_KERAS'])"]
    inherited = subprocess.run(probe, env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert inherited.stdout.split() == ["True", "1"], inherited.stderr[-2000:]
    users = {k: v for k, v in os.environ.items() if k != "TFCOMPARE_SET_TF_USE_LEGACY_KERAS"}
    own = subprocess.run(probe, env={**users, "TF_USE_LEGACY_KERAS": "0"}, capture_output=True, text=True,
                         timeout=120)
    assert own.stdout.split() == ["False", "0"], own.stderr[-2000:]
