"""Ops a TF1 script pins to a GPU (`with tf.device('/gpu:0')`) run on the CPU when this machine has no GPU.

TF1 users ran such scripts with `allow_soft_placement` for exactly this; TensorFlow 2's `Session` refuses the
pin ("Cannot assign a device for operation"). In the TF1 child, on a machine without a GPU, every session the
script makes gets soft placement (its own config copied, nothing else changed), and one note says so.
"""

from __future__ import annotations

from tensorflow.python.client import session as _session

__all__ = ["install", "pinned_to_gpu"]


def pinned_to_gpu(graph, script: str) -> str:
    """`/device:GPU:0 (line N)` for the first op of `graph` pinned to a GPU, or ""."""
    for op in graph.get_operations():
        if "GPU" in op.device.upper():
            lines = [f.lineno for f in (op.traceback or []) if f.filename == script]
            return op.device + (f" at line {lines[-1]}" if lines else "")
    return ""


def install(script: str, notes: list[str], has_gpu: bool) -> None:
    """For this whole process (the child that runs the TF1 script); nothing when a GPU is visible."""
    if has_gpu:
        return
    from tensorflow.core.protobuf import config_pb2
    from tensorflow.python.eager import context

    original = _session.BaseSession.__init__

    def __init__(self, target="", graph=None, config=None):
        if config is None or isinstance(config, config_pb2.ConfigProto):  # anything else: TensorFlow's own error
            soft = config_pb2.ConfigProto()
            soft.CopyFrom(config if config is not None else context.context().config)
            soft.allow_soft_placement = True
            config = soft
        original(self, target, graph, config)
        pinned = pinned_to_gpu(self.graph, script)
        if pinned and not any(n.startswith(_NOTE) for n in notes):
            notes.append(f"{_NOTE} ({pinned}) and this machine has none: those ops ran on the CPU "
                         "(allow_soft_placement in the script's sessions, as TF1 users set it)")

    _session.BaseSession.__init__ = __init__


_NOTE = "the script pins ops to a GPU"
