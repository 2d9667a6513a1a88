"""tfcompare: one model written for TF1 and TF2, run side by side, compared, timed and logged."""

import os as _os

# TensorFlow's C++ start-up chatter (oneDNN notices, CUDA probes) buries the results; keep warnings.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

__version__ = "0.1.0"
__all__ = ["__version__"]
