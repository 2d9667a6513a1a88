"""The machine's limit: the rate of a plain float32 GEMM (N x N @ N x N in one tf.function), so every run can
say how far a step is from what the hardware does with TensorFlow's own best kernel.

Measured in every run (about a quarter of a second) and kept per machine, device and thread count as
the best rate seen: a run on a busy machine measures less and keeps the cached best; a run that
measures more replaces it, so a value taken while the machine was busy cannot stay the limit for good.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import time
from pathlib import Path

from tfcompare.core.files import write_atomic

__all__ = ["Peak", "gemm_peak", "CACHE"]

CACHE = Path(os.environ.get("TFCOMPARE_CACHE", Path.home() / ".cache" / "tfcompare")) / "gemm_peak.json"
_N = 1024
_BLOCK_S = 0.03
_BLOCKS = 7


@dataclasses.dataclass
class Peak:
    gflops: float | None  # the limit: the best rate seen on this machine (now or cached)
    method: str
    cached: bool = False  # the limit is the cached best: this run measured less (`now_gflops`)
    error: str | None = None
    now_gflops: float | None = None  # what this run measured
    replaced_gflops: float | None = None  # a lower cached best this run's measurement replaced

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _key(device: str, threads: int) -> str:
    import tensorflow as tf

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{cpu}|{device}|threads={threads}|tf={tf.__version__}"


def _measure(device: str) -> float:
    import tensorflow as tf

    with tf.device(device):
        a = tf.random.stateless_normal((_N, _N), seed=(1, 2))
        b = tf.random.stateless_normal((_N, _N), seed=(3, 4))
    gemm = tf.function(lambda x, y: tf.reduce_sum(tf.matmul(x, y)))
    gemm(a, b).numpy()
    calls = 1
    while True:  # calls per block so a block lasts _BLOCK_S
        t0 = time.perf_counter()
        for _ in range(calls):
            gemm(a, b).numpy()
        if time.perf_counter() - t0 >= _BLOCK_S or calls >= 1024:
            break
        calls *= 2
    rates = []
    for _ in range(_BLOCKS):
        t0 = time.perf_counter()
        for _ in range(calls):
            gemm(a, b).numpy()
        rates.append(2 * _N ** 3 * calls / (time.perf_counter() - t0) / 1e9)
    rates.sort()
    return rates[len(rates) // 2]


def _cached(key: str) -> float | None:
    try:
        value = json.loads(CACHE.read_text()).get(key) if CACHE.exists() else None
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def gemm_peak(device: str, threads: int, *, refresh: bool = False) -> Peak:
    """The machine's GEMM rate in GFLOP/s: measured now, and the best of that and the cached best.

    `refresh` forgets the cached best. A failure is stated, never raised.
    """
    method = (f"median of {_BLOCKS} blocks of float32 {_N}x{_N} @ {_N}x{_N} in one tf.function on {device}, "
              f"{threads} threads, measured in this run; the best rate seen is kept in {CACHE}")
    try:
        key = _key(device, threads)
        best = None if refresh else _cached(key)
        now = _measure(device)
    except Exception as exc:  # the limit column is then left empty; the run goes on
        return Peak(None, method, error=f"GEMM calibration failed: {type(exc).__name__}: {exc}")
    if best is not None and best >= now:
        return Peak(best, method, cached=True, now_gflops=now)
    try:
        cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
        cache[key] = now
        write_atomic(CACHE, json.dumps(cache, indent=2))
    except (OSError, ValueError, AttributeError):
        pass  # an unwritable cache only means the next run cannot compare with this one
    return Peak(now, method, now_gflops=now, replaced_gflops=best)
