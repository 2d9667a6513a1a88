"""Cases whose distributed workers misbehave on purpose: one dies, one hangs. Written for tfcompare's tests."""

import json
import os
import signal
import time

import numpy as np

from debug_cases import linear_graph as _graph  # the same TF1 graph (the loader puts this folder on sys.path)
from tfcompare import Case, InputSpec, StepModule, tf1


def _task() -> int | None:
    config = os.environ.get("TF_CONFIG")
    return json.loads(config)["task"]["index"] if config else None


class Linear(StepModule):
    def __call__(self, inputs):
        return tf1.matmul(inputs["x"], self.variables_by_name["w"])

    def loss(self, inputs):
        return tf1.reduce_mean(tf1.square(self(inputs) - inputs["y"]))


def _dies(weights):
    if _task() == 1:  # the second worker process is killed as it builds its model
        os.kill(os.getpid(), signal.SIGKILL)
    return Linear(weights)


def _hangs(weights):
    if _task() == 1:
        time.sleep(3600)
    return Linear(weights)


INPUTS = (InputSpec("x", (4,)), InputSpec("y", (1,)))
_OTHERS = {m: "the misbehaving worker is the multi-worker mode's" for m in ("tf1-ps", "tf2-mirrored")}
_W = lambda rng: {"w": rng.standard_normal((4, 1)).astype(np.float32)}  # noqa: E731
CASES = [
    Case("worker-dies", "worker 1 is killed while building", INPUTS, _W, build_graph=_graph, make_model=_dies,
         default_batch_size=8, unsupported_modes=_OTHERS),
    Case("worker-hangs", "worker 1 never finishes building", INPUTS, _W, build_graph=_graph, make_model=_hangs,
         default_batch_size=8, unsupported_modes=_OTHERS),
]
