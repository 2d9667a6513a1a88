"""The machine a run happened on, and the one thread setting every mode shares."""

from __future__ import annotations

import dataclasses
import os
import platform
import sys

import tensorflow as tf

__all__ = ["Environment", "configure_threads", "session_config", "describe", "memory_device", "PeakMemory"]

_MEMORY_METHOD = (
    "allocator peak above the live bytes at the start of the mode's first call and warm-up steps, "
    "from tf.config.experimental.get_memory_info({device}) after reset_memory_stats; the CPU allocator "
    "only tracks large buffers (a 40 KB tensor is not counted, a 400 KB one is), so 0 means no large buffer"
)


@dataclasses.dataclass
class Environment:
    tf_version: str
    python: str
    platform: str
    cpu_count: int
    devices: list[str]
    gpu: bool
    memory_device: str
    intra_op_threads: int
    inter_op_threads: int
    onednn: str
    timer: str
    timer_overhead_s: float
    memory_method: str
    gemm_peak_gflops: float | None = None  # the machine's limit (core.peak), None if calibration failed
    gemm_method: str | None = None
    gemm_cached: bool = False
    gemm_error: str | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def configure_threads(intra: int, inter: int) -> tuple[int, int]:
    """Fix the eager context's thread pools; the TF1 Session gets the same values (`session_config`).

    The eager pools can only be set before TensorFlow's context starts. If it already started (a
    second run in one process), keep what is set and return it, so the results state the truth.
    """
    try:
        tf.config.threading.set_intra_op_parallelism_threads(intra)
        tf.config.threading.set_inter_op_parallelism_threads(inter)
    except RuntimeError:
        pass
    return (tf.config.threading.get_intra_op_parallelism_threads() or intra,
            tf.config.threading.get_inter_op_parallelism_threads() or inter)


def session_config(intra: int, inter: int):
    """A ConfigProto with the same thread counts as the eager context."""
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)


def memory_device() -> str:
    """The device whose allocator we read: the first GPU when TensorFlow sees one, else the CPU."""
    return "GPU:0" if tf.config.list_physical_devices("GPU") else "CPU:0"


class PeakMemory:
    """The allocator's peak above the live bytes over a block: `with PeakMemory() as m: ...; m.bytes`.

    `bytes` is None where the device's allocator keeps no statistics (TF's default CPU allocator
    without oneDNN; tfcompare asks for the BFC allocator, `TF_CPU_ALLOCATOR_USE_BFC=true`, which has them).
    """

    def __init__(self, device: str | None = None):
        self.device = device or memory_device()
        self.bytes: int | None = None
        self._base: int | None = None

    def __enter__(self):
        try:
            tf.config.experimental.reset_memory_stats(self.device)
            self._base = tf.config.experimental.get_memory_info(self.device)["current"]
        except ValueError:  # "Allocator stats not available": nothing to measure on this device
            self._base = None
        return self

    def __exit__(self, *exc):
        if self._base is not None and exc[0] is None:
            self.bytes = int(tf.config.experimental.get_memory_info(self.device)["peak"] - self._base)


def memory_stats_available(device: str) -> bool:
    try:
        tf.config.experimental.get_memory_info(device)
        return True
    except ValueError:
        return False


def describe(intra: int, inter: int, timer_name: str, timer_overhead_s: float) -> Environment:
    devices = [f"{d.device_type}:{d.name.rsplit(':', 1)[-1]}" for d in tf.config.list_physical_devices()]
    device = memory_device()
    return Environment(
        tf_version=tf.__version__,
        python=sys.version.split()[0],
        platform=platform.platform(),
        cpu_count=os.cpu_count() or 1,
        devices=devices,
        gpu=device.startswith("GPU"),
        memory_device=device,
        intra_op_threads=intra,
        inter_op_threads=inter,
        onednn=os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on for x86 Linux builds)"),
        timer=timer_name,
        timer_overhead_s=timer_overhead_s,
        memory_method=(_MEMORY_METHOD.format(device=repr(device)) if memory_stats_available(device) else
                       f"unavailable: the {device} allocator keeps no statistics (set TF_CPU_ALLOCATOR_USE_BFC=true "
                       f"before TensorFlow starts; tfcompare's CLI does unless you set it yourself)"),
    )
