"""TensorFlow's trace log: the per-trace record the audit reads, and the retracing warning the harness drops.

For every new trace TF 2.21 logs, at verbosity 1, "Creating new FuncGraph for Python function %r
(key: %r, %r)" with the real `FunctionContext` and `FunctionType` as record args (see the audit).
"""

from __future__ import annotations

import tensorflow as tf

__all__ = ["TRACE_MESSAGE", "RETRACING_WARNING", "QuietRetraceWarning"]

TRACE_MESSAGE = "Creating new FuncGraph for Python function"
RETRACING_WARNING = "triggered tf.function retracing"  # TF's "N out of the last M calls ..." warning


class QuietRetraceWarning:
    """Drop TensorFlow's "N out of the last M calls ... retracing" warning while the block runs.

    The harness and the demonstrations create `tf.function`s on purpose, which TF's detector (keyed by
    source code) takes for retracing; real retraces are counted exactly and reported instead.
    """

    def filter(self, record):
        return RETRACING_WARNING not in record.getMessage()

    def __enter__(self):
        tf.get_logger().addFilter(self)
        return self

    def __exit__(self, *exc):
        tf.get_logger().removeFilter(self)
