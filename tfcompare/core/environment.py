"""The machine a run happened on, and the one thread setting every mode shares."""

from __future__ import annotations

import dataclasses
import gc
import os
import platform
import sys
import time

import tensorflow as tf

__all__ = ["Environment", "configure_threads", "session_config", "describe", "memory_device", "PeakMemory",
           "Counting", "BFC", "ONEDNN", "counting", "memory_method",
           "load_snapshot", "machine_load", "BUSY_SHARE"]

BUSY_SHARE = 0.25  # other processes using more than a quarter of the machine's CPU time: the run was busy

_MEMORY_METHOD = (
    "allocator peak above the live bytes at the start of the mode's first call and one steady step, "
    "from tf.config.experimental.get_memory_info({device}) after reset_memory_stats; {counts}"
)


@dataclasses.dataclass(frozen=True)
class Counting:
    """Which allocator the peak comes from and which buffers it counts, as measured (tests/test_core_memory.py).

    The peak means different things under different allocators, so every text about memory says this one.
    """
    allocator: str
    counts: str  # short, for a plot's axis
    detail: str  # the whole truth, for results.json's memory_method

    def text(self) -> str:
        return f"the {self.allocator} allocator counts {self.detail}"


BFC = Counting("BFC", "every buffer",
               "every buffer, each at the size it took (its bytes rounded up to 256 B, or a free chunk under twice "
               "them): a 40,000-byte tensor raises the peak by about 40 KB, a 4,000,000-byte one by about 4.2 MB")
ONEDNN = Counting("oneDNN", "buffers >= 256 KiB",
                  "only buffers of 256 KiB or more (a 40 KB tensor adds 0, a 400 KB one about 400 KB), so 0 means "
                  "no buffer that large")


def counting(device: str) -> Counting:
    """BFC on a GPU and where `TF_CPU_ALLOCATOR_USE_BFC` is true (tfcompare's default); else oneDNN's, the only
    other CPU allocator with statistics."""
    bfc = os.environ.get("TF_CPU_ALLOCATOR_USE_BFC", "").lower() in ("true", "1")
    return BFC if device.startswith("GPU") or bfc else ONEDNN


def memory_method(device: str) -> str:
    """How peak memory was measured on `device`, or why it could not be."""
    if memory_stats_available(device):
        return _MEMORY_METHOD.format(device=repr(device), counts=counting(device).text())
    return (f"unavailable: the {device} allocator keeps no statistics (set TF_CPU_ALLOCATOR_USE_BFC=true "
            f"before TensorFlow starts; tfcompare does unless you set it yourself)")


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
    gemm_now_gflops: float | None = None  # this run's own GEMM measurement (the limit is the best seen)
    gemm_replaced_gflops: float | None = None  # a lower cached rate this run's measurement replaced
    load: dict | None = None  # the machine's load at the start and end of the run (machine_load)

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
    Which buffers the peak counts depends on the allocator: `counting`.
    """

    def __init__(self, device: str | None = None):
        self.device = device or memory_device()
        self.bytes: int | None = None
        self._base: int | None = None
        self._gc_was_enabled = False

    def __enter__(self):
        # Garbage from earlier work (a previous case's tensors in reference cycles) freed inside the block
        # would lower the live bytes under the base and hide the block's own buffers (seen: a 4 MiB gradient
        # read as 2 MiB): the cycle collector stays off until the block ends (a full collection before it would
        # cost ~0.1 s a mode with TensorFlow's object graph).
        self._gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            tf.config.experimental.reset_memory_stats(self.device)
            self._base = tf.config.experimental.get_memory_info(self.device)["current"]
        except ValueError:  # "Allocator stats not available": nothing to measure on this device
            self._base = None
        return self

    def __exit__(self, *exc):
        if self._gc_was_enabled:
            gc.enable()
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
        memory_method=memory_method(device),
    )


def _busy_cpu_s() -> float | None:
    """CPU seconds the whole machine has spent busy since boot (/proc/stat), None where unavailable."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / (os.sysconf("SC_CLK_TCK") or 100)


def load_snapshot() -> dict:
    """The load averages, the machine's busy CPU seconds, this process's CPU seconds, and the time."""
    t = os.times()
    return {"loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None, "busy_cpu_s": _busy_cpu_s(),
            "own_cpu_s": t.user + t.system + t.children_user + t.children_system, "time": time.monotonic()}


def machine_load(start: dict, end: dict, cpu_count: int) -> dict:
    """How busy the machine was during the run: load averages at start and end, and the share of its CPU
    time that other processes took (busy CPU seconds minus ours, over wall time x CPUs).

    `busy` when others took more than `BUSY_SHARE` (where /proc/stat cannot tell, when the 1-minute load at the
    start exceeded half the CPUs): the run's timings then carry the other processes' noise, and its absolute
    times run high. The load average alone would blame a quiet machine for the run just before this one (it
    decays over minutes), so the measured share decides where there is one.
    """
    wall = end["time"] - start["time"]
    others = None
    if start["busy_cpu_s"] is not None and end["busy_cpu_s"] is not None and wall > 0:
        own = end["own_cpu_s"] - start["own_cpu_s"]
        others = max(0.0, (end["busy_cpu_s"] - start["busy_cpu_s"] - own) / (wall * cpu_count))
    load_start = (start["loadavg"] or [0.0])[0]
    busy = others > BUSY_SHARE if others is not None else load_start > cpu_count / 2
    warning = None
    if busy:
        warning = (f"the machine was busy: 1-minute load {load_start:.1f} at the start and "
                   f"{(end['loadavg'] or [0.0])[0]:.1f} at the end on {cpu_count} CPUs"
                   + (f", other processes took {others:.0%} of its CPU time" if others is not None else "")
                   + "; absolute times run high and intervals wide; ratios within a round stay comparable")
    return {"load_start": start["loadavg"], "load_end": end["loadavg"], "others_cpu_share": others,
            "busy": busy, "warning": warning}
