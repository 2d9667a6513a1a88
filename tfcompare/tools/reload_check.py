"""Load exported SavedModels in a clean process and check them against the outputs of the originals.

Run as a script (`python reload_check.py MANIFEST.json`), never imported by the exporter: this process
imports TensorFlow and NumPy only, so passing here proves the graphs run without the Python code that
built them. Prints one JSON document on stdout.
"""

import json
import statistics
import sys
import time

import numpy as np
import tensorflow as tf

_REPEATS = 20


def _check(model_dir, batches, expected):
    t0 = time.perf_counter()
    loaded = tf.saved_model.load(model_dir)
    serve = loaded.signatures["serving_default"]
    load_s = time.perf_counter() - t0
    errors, first_call_s, steady = [], None, []
    for i, (batch, want) in enumerate(zip(batches, expected)):
        feed = {k: tf.constant(v) for k, v in batch.items()}
        t0 = time.perf_counter()
        got = serve(**feed)["output"].numpy()
        if i == 0:
            first_call_s = time.perf_counter() - t0
        errors.append(float(np.max(np.abs(got - want))) if got.shape == want.shape else float("inf"))
    feed = {k: tf.constant(v) for k, v in batches[0].items()}
    for _ in range(_REPEATS):
        t0 = time.perf_counter()
        serve(**feed)["output"].numpy()
        steady.append(time.perf_counter() - t0)
    return {"load_s": load_s, "first_call_s": first_call_s, "steady_s": statistics.median(steady),
            "max_abs_err": max(errors), "errors_per_batch": errors}


def main(manifest_path):
    manifest = json.loads(open(manifest_path).read())
    batches = [dict(np.load(p)) for p in manifest["inputs"]]
    out = {}
    for name, entry in manifest["models"].items():
        expected = [np.load(p)["output"] for p in entry["expected"]]
        try:
            out[name] = _check(entry["dir"], batches, expected)
        except Exception as exc:  # report, and check the other model
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("legacy_graphs", "eager_models", "tfcompare"))
    print(json.dumps({"models": out, "model_code_imported": leaked}))


if __name__ == "__main__":
    main(sys.argv[1])
