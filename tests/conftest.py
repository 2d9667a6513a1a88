"""Shared fixtures: one quick real run of every built-in case in every mode, reused by many tests."""

import dataclasses
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

from tfcompare.run import harness  # noqa: E402
from tfcompare.core.modes import LEVER_MODES, MODES  # noqa: E402
from tfcompare.registry import CASES  # noqa: E402

QUICK_TEST = dict(steps=3, repeats=3, min_block_s=0.002, loop_steps=4, threads=2)

# The full run covers every case in every core mode, and the lever modes on the cases whose structure they meet
# differently (varying dims, control flow, Python and custom-gradient ops); the four heaviest graphs skip them
# (a third of the suite's time) and their lever rows say why.
_NO_LEVERS = ("elementwise", "cnn", "resnet", "keras-lstm")
FULL_CASES = {
    name: dataclasses.replace(case, unsupported_modes={
        **{m: "lever modes are not run on this case in the test suite's full run (time)" for m in LEVER_MODES},
        **case.unsupported_modes}) if name in _NO_LEVERS else case
    for name, case in CASES.items()}


@pytest.fixture(scope="session")
def full_run(tmp_path_factory):
    """Every built-in case in every mode (core and lever), on real TensorFlow, with short timing."""
    logdir = tmp_path_factory.mktemp("logs")
    config = harness.RunConfig(cases=tuple(FULL_CASES), modes=tuple(MODES), **QUICK_TEST)
    return harness.run(config, FULL_CASES, logdir, "full")
