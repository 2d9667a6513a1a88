"""What the peak-memory counter counts, measured: the texts (results.json's memory_method, claim 8's axis, the
README) say what this shows.

One fresh process, because the allocator is chosen when TensorFlow starts: `import tfcompare` sets
`TF_CPU_ALLOCATOR_USE_BFC=true` first, and the blocks are read with `environment.PeakMemory`, as `run` reads them.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, os
import tfcompare  # before TensorFlow: chooses the BFC allocator
import tensorflow as tf
from tfcompare.core import environment

grown = {}
for size in (1_000, 40_000, 4_000_000):
    with environment.PeakMemory("CPU:0") as peak:
        t = tf.zeros([size // 4], tf.float32)
    grown[size] = peak.bytes
    del t
print(json.dumps({"grown": grown, "setting": os.environ["TF_CPU_ALLOCATOR_USE_BFC"],
                  "method": environment.memory_method("CPU:0"), "counts": environment.counting("CPU:0").counts}))
"""


def test_the_bfc_allocator_tfcompare_chooses_counts_every_buffer():
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CPU_ALLOCATOR_USE_BFC", "TF_ENABLE_ONEDNN_OPTS")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["setting"] == "true"
    grown = {int(k): v for k, v in found["grown"].items()}
    # every buffer, small ones too, at its bytes rounded up and under twice them (measured: 1,280 / 40,448 /
    # 4,194,560 B on TF 2.21, the extra 256 B a temporary of tf.zeros)
    assert 1_000 <= grown[1_000] < 2 * 1_000 + 512
    assert 40_000 <= grown[40_000] < 2 * 40_000
    assert 4_000_000 <= grown[4_000_000] < 2 * 4_000_000
    assert found["counts"] == "every buffer"
    assert "the BFC allocator counts every buffer" in found["method"]
    assert "a 40,000-byte tensor raises the peak by about 40 KB" in found["method"]
