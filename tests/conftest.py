"""Shared fixtures: one quick real run of every built-in case in every mode, reused by many tests."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

from tfcompare.run import harness  # noqa: E402
from tfcompare.core.modes import MODES  # noqa: E402
from tfcompare.registry import CASES  # noqa: E402

QUICK_TEST = dict(steps=3, repeats=3, min_block_s=0.002, loop_steps=4, threads=2)


@pytest.fixture(scope="session")
def full_run(tmp_path_factory):
    """Every built-in case in every mode (core and lever), on real TensorFlow, with short timing."""
    logdir = tmp_path_factory.mktemp("logs")
    config = harness.RunConfig(cases=tuple(CASES), modes=tuple(MODES), **QUICK_TEST)
    return harness.run(config, CASES, logdir, "full")
