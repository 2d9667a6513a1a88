"""The machine properties some verdicts rest on (oneDNN, AVX, threads), read the way TensorFlow sees them.

A claim names the ones it depends on (`Claim.depends_on`); the report prints their values beside its
verdict, so a reader on another machine knows why the same claim may turn.
"""

from __future__ import annotations

import os

__all__ = ["PROPERTIES", "machine_properties"]

PROPERTIES = ("oneDNN", "AVX", "threads")


def _onednn() -> str:
    """On or off as this TensorFlow decided it (the env setting, else the CPU's default), and the setting."""
    setting = os.environ.get("TF_ENABLE_ONEDNN_OPTS")
    said = f"TF_ENABLE_ONEDNN_OPTS={setting}" if setting is not None else "TF_ENABLE_ONEDNN_OPTS unset"
    try:
        from tensorflow.python.util import _pywrap_util_port

        on = bool(_pywrap_util_port.IsMklEnabled())
    except (ImportError, AttributeError):  # a TensorFlow without the probe: say what the setting asks for
        return f"{'off' if setting in ('0', 'false', 'False') else 'unknown'} ({said})"
    return f"{'on' if on else 'off'} ({said})"


def _avx(cpuinfo: str = "/proc/cpuinfo") -> str:
    """`AVX2 yes, AVX-512 no, AVX-512 VNNI no` from the CPU's flags; `unknown` where they cannot be read."""
    try:
        with open(cpuinfo) as f:
            flags = set(next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), []))
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    if not flags:
        return "unknown (no CPU flags)"
    names = (("avx2", "AVX2"), ("avx512f", "AVX-512"), ("avx512_vnni", "AVX-512 VNNI"))
    return ", ".join(f"{label} {'yes' if flag in flags else 'no'}" for flag, label in names)


def _threads() -> str:
    import tensorflow as tf

    intra = tf.config.threading.get_intra_op_parallelism_threads() or "default"
    inter = tf.config.threading.get_inter_op_parallelism_threads() or "default"
    return f"{os.cpu_count() or 1} CPUs, intra-op {intra}, inter-op {inter}"


def machine_properties() -> dict[str, str]:
    """Every property in `PROPERTIES`, as text for the report."""
    return {"oneDNN": _onednn(), "AVX": _avx(), "threads": _threads()}
