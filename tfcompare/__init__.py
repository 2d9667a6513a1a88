"""tfcompare: one model written for TF1 and TF2, run side by side, compared, timed and logged.

The case-writing API, from one import root:

    from tfcompare import Case, InputSpec, placeholders, graph_parts, tf1, StepModule, SGD, Momentum

Names are resolved on first use, so `import tfcompare` (and `tfcompare --help`) does not import
TensorFlow until a name that needs it is asked for.
"""

import importlib as _importlib
import os as _os
from importlib.util import find_spec as _find_spec

# TensorFlow's C++ start-up chatter (oneDNN notices, CUDA probes) buries the results; keep warnings.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Peak memory is read from the allocator's statistics. TF's default CPU allocator keeps none unless
# oneDNN is on (it is by default only on CPUs with AVX-512 VNNI and newer); the BFC allocator keeps them.
# Set before TensorFlow starts, and only when the user has not chosen.
_os.environ.setdefault("TF_CPU_ALLOCATOR_USE_BFC", "true")
# TF1 code's tf.compat.v1.layers and nn.rnn_cell live in tf-keras under Keras 3. With the legacy extra installed,
# let TensorFlow use it for them (and for `tf.keras`); `import keras` stays Keras 3 for the TF2 side.
# LEGACY_KERAS_SET_HERE says tfcompare, not the user, chose it: a TF2 script run by `tfcompare pair` must get the
# `tf.keras` its author gets (Keras 3), so that child is started with it off.
# A process started by one that imported tfcompare inherits the variable: the mark says tfcompare set it there (a
# pytest-xdist worker, a user's program that imports tfcompare and runs its CLI), so it is not taken for the user's.
_SET_BY_TFCOMPARE = "TFCOMPARE_SET_TF_USE_LEGACY_KERAS"
LEGACY_KERAS_SET_HERE = _find_spec("tf_keras") is not None and (
    "TF_USE_LEGACY_KERAS" not in _os.environ or _os.environ.get(_SET_BY_TFCOMPARE) == "1")
if LEGACY_KERAS_SET_HERE:
    _os.environ["TF_USE_LEGACY_KERAS"] = "1"
    _os.environ[_SET_BY_TFCOMPARE] = "1"

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    "Case": "tfcompare.core.cases",
    "InputSpec": "tfcompare.core.cases",
    "GraphParts": "tfcompare.core.cases",
    "WeightLayout": "tfcompare.core.cases",
    "CaseError": "tfcompare.core.cases",
    "load_cases_file": "tfcompare.core.cases",
    "tf1": "tfcompare.core.graph_builder",
    "placeholders": "tfcompare.core.graph_builder",
    "graph_parts": "tfcompare.core.graph_builder",
    "weight_loader": "tfcompare.core.graph_builder",
    "StepModule": "tfcompare.core.step_module",
    "StepFunction": "tfcompare.core.step_module",
    "SGD": "tfcompare.core.optimizers",
    "Momentum": "tfcompare.core.optimizers",
    "Adam": "tfcompare.core.optimizers",
    "RMSProp": "tfcompare.core.optimizers",
    "Adagrad": "tfcompare.core.optimizers",
    "KerasStep": "tfcompare.core.keras_step",
    "checkpoint_weights": "tfcompare.core.checkpoint",
}
__all__ = ["__version__", *_PUBLIC]


def __getattr__(name):
    if name in _PUBLIC:
        value = getattr(_importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tfcompare' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
