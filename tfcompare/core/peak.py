"""The machine's limit: the rate of a plain float32 GEMM (N x N @ N x N in one tf.function), measured once per
machine, device and thread count and cached, so every run can say how far a step is from what the
hardware does with TensorFlow's own best kernel.
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
_BLOCK_S = 0.05
_BLOCKS = 7


@dataclasses.dataclass
class Peak:
    gflops: float | None
    method: str
    cached: bool = False
    error: str | None = None

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


def gemm_peak(device: str, threads: int, *, refresh: bool = False) -> Peak:
    """The median GEMM rate in GFLOP/s (cached per machine); a failure is stated, never raised."""
    method = (f"median of {_BLOCKS} blocks of float32 {_N}x{_N} @ {_N}x{_N} in one tf.function on {device}, "
              f"{threads} threads; cached in {CACHE}")
    key = None
    try:
        key = _key(device, threads)
        cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
        if key in cache and not refresh:
            return Peak(cache[key], method, cached=True)
        value = _measure(device)
    except Exception as exc:  # the limit column is then left empty; the run goes on
        return Peak(None, method, error=f"GEMM calibration failed: {type(exc).__name__}: {exc}")
    try:
        cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
        cache[key] = value
        write_atomic(CACHE, json.dumps(cache, indent=2))
    except (OSError, ValueError):
        pass  # an unwritable cache only costs the next run a new calibration
    return Peak(value, method)
