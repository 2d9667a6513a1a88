"""Claim 10: a static graph serialises, runs without its code, and quantises."""

from __future__ import annotations

from pathlib import Path
import tempfile

from tfcompare.claims.claim import Claim, Judged
from tfcompare.claims.verdicts import FAILS, HOLDS
from tfcompare.registry import CASES
from tfcompare.tools.export import export_case

__all__ = ["CLAIM"]


def measure(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        report = export_case(CASES["mlp"], Path(tmp) / "mlp")
    return report.to_json()


def judge(m):
    f = {x["format"]: x for x in m["formats"]}
    q, fl = f.get("tflite-dynamic-range", {}), f.get("tflite-float", {})
    ok = m["ok"] and m["reload_imported"] == [] and q.get("size_bytes", 1) < fl.get("size_bytes", 0)
    return Judged((HOLDS if ok else FAILS), (
        f"mlp SavedModels reloaded in a process with no model code (max err {f['savedmodel-tf2']['max_abs_err']:.1e}); "
        f"TFLite float {fl.get('size_bytes', 0) / 1024:.0f} KiB -> dynamic-range {q.get('size_bytes', 0) / 1024:.0f} KiB, "
        f"error {q.get('max_rel_err') or 0:.1e} of the output range"),
        "reload agrees within 1e-5 without model code; quantised file smaller and within 5e-2 of the range")


CLAIM = Claim(10, "A static graph serialises and runs without its Python code, and is the path to quantisation", measure, judge)
