"""A side's record handed between processes: saved without a second copy of its arrays in memory, read back an
array at a time (the TF2 child needs TF1's initial weights and batches, not a 2048-wide VAE's GBs of steps)."""

import tracemalloc

import numpy as np
import pytest

from tfcompare.scripts.child.record import SideRecord, Variable, load, save

_MB = 1 << 20


def _record(n_arrays: int = 4, size_mb: int = 16) -> SideRecord:
    rec = SideRecord(side="tf1", script="a.py", status="ok", losses=[1.0])
    rec.variables = [Variable("w", "w", [size_mb * _MB // 4], "float32", "line 1", 0)]
    rng = np.random.default_rng(0)
    rec.arrays = {f"after/0/w{i}": rng.random(size_mb * _MB // 4, dtype=np.float32) for i in range(n_arrays)}
    rec.arrays["init/w"] = np.arange(4, dtype=np.float32)
    return rec


def test_a_record_is_saved_without_copying_its_arrays_and_read_back_one_array_at_a_time(tmp_path):
    rec = _record()
    total = sum(v.nbytes for v in rec.arrays.values())
    tracemalloc.start()
    try:
        save(rec, tmp_path)
        _, peak = tracemalloc.get_traced_memory()
        # before: a deep copy (dataclasses.asdict), a BytesIO and its bytes: over 3x the arrays
        assert peak < 0.5 * total, (peak, total)
        tracemalloc.reset_peak()
        back = load(tmp_path, "tf1")
        assert back.losses == [1.0] and back.variables[0].name == "w" and len(back.arrays) == 5
        assert "init/w" in back.arrays and "init/x" not in back.arrays
        np.testing.assert_array_equal(back.weights("init", 0)["w"], np.arange(4, dtype=np.float32))
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 0.1 * total, (peak, total)  # the 16 MB arrays were not read
        read = back.arrays["after/0/w2"]
        _, peak = tracemalloc.get_traced_memory()
        assert 16 * _MB <= peak < 2 * 16 * _MB + 0.1 * total, peak  # one array read
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(read, rec.arrays["after/0/w2"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tf1.json", "tf1.npz"]  # no temporary file left
    back.arrays["grad/0/w"] = np.ones(2)
    del back.arrays["after/0/w0"]
    assert list(back.arrays)[-1] == "grad/0/w" and "after/0/w0" not in back.arrays and len(back.arrays) == 5
    with pytest.raises(KeyError):
        back.arrays["after/0/w0"]
