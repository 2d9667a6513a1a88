"""The warm start (`core.warm_start`): a child forked from the process that imported TensorFlow once is what a new
`python -m MODULE ARGS` in its folder would be, under a keeper, with its exit code; and it starts in a fraction of
a new process's time. Real processes and real TensorFlow: what is tested is what a fork carries over."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfcompare.core import warm_start
from tfcompare.core.keeper import Kept
from tfcompare.scripts.child.processes import _sets_environment

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the warm start is Linux only")

_PROBE = '''
import json, os, random, signal, sys, tempfile
import numpy as np
import tensorflow as tf
import tfcompare
out = {"cwd": os.getcwd(), "path0": sys.path[0], "argv": sys.argv, "mine": os.environ.get("TFCOMPARE_PAIR_TIMING"),
       "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler, "tmp": tempfile.gettempdir(),
       "np": float(np.random.rand()), "py": random.random(), "legacy_here": tfcompare.LEGACY_KERAS_SET_HERE,
       "cmdline": open("/proc/self/cmdline", "rb").read().rstrip(b"\\0").split(b"\\0")[2:4],
       "eager": bool(tf.executing_eagerly()), "sum": float(tf.reduce_sum(tf.ones([3, 2])))}
out["cmdline"] = [part.decode() for part in out["cmdline"]]
with tf.compat.v1.Graph().as_default():
    x = tf.compat.v1.placeholder(tf.float32, [None, 2])
    with tf.compat.v1.Session() as sess:
        out["session"] = float(sess.run(tf.reduce_sum(x * 2.0), {x: [[1.0, 2.0]]}))
open(sys.argv[1], "w").write(json.dumps(out))
print("probe printed", flush=True)
sys.exit(int(sys.argv[2]))
'''


def _run(folder: Path, argv: list[str], env: dict, warm: bool = True) -> tuple[Kept, str]:
    read, write = os.pipe()
    try:
        kept = Kept([sys.executable, *argv], cwd=folder, keeper_cwd=folder, env=env, stdout=write, warm=warm)
    finally:
        os.close(write)
    code = kept.wait(timeout=120)
    kept.reap()
    with os.fdopen(read, "rb") as f:
        printed = f.read().decode(errors="replace")
    assert code is not None
    return kept, printed


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """Two children forked from the warm process, and one started as a new process."""
    folder = tmp_path_factory.mktemp("warm")
    (folder / "probe_mod.py").write_text(_PROBE)
    (folder / "tmp").mkdir()
    env = dict(os.environ, TFCOMPARE_PAIR_TIMING="seen", TMPDIR=str(folder / "tmp"), TF_USE_LEGACY_KERAS="0")
    env.pop("TFCOMPARE_SET_TF_USE_LEGACY_KERAS", None)
    warm_start.stop()  # one started by an earlier test, under whatever environment it had then
    warm_start.warm_up(env)  # as processes.run_sides / run_child do before starting a child
    runs = {}
    for name, warm, code in (("first", True, 0), ("second", True, 3), ("new", False, 0)):
        started = time.perf_counter()
        kept, printed = _run(folder, ["-m", "probe_mod", str(folder / f"{name}.json"), str(code)], env, warm)
        runs[name] = {"kept": kept, "printed": printed, "s": time.perf_counter() - started,
                      "seen": json.loads((folder / f"{name}.json").read_text())}
    return folder, runs


def test_a_forked_child_is_what_a_new_python_m_would_be(probes):
    folder, runs = probes
    new = runs["new"]["seen"]
    for name in ("first", "second"):
        seen = runs[name]["seen"]
        assert seen["cwd"] == seen["path0"] == new["cwd"] == str(folder)
        assert seen["argv"] == [str(folder / "probe_mod.py"), str(folder / f"{name}.json"), seen["argv"][2]]
        assert seen["mine"] == "seen" and seen["sigint"] and seen["tmp"] == str(folder / "tmp") == new["tmp"]
        # tfcompare imported again under the child's environment: TF_USE_LEGACY_KERAS=0 is the child's own
        assert seen["legacy_here"] is False is new["legacy_here"]
        assert seen["cmdline"] == ["probe_mod", str(folder / f"{name}.json")] == \
            [part.replace("new", name) for part in new["cmdline"]]
        assert seen["eager"] and seen["sum"] == 6.0 and seen["session"] == 6.0
        assert "probe printed" in runs[name]["printed"]
    # each child draws its own numbers, as new processes do (a fork would otherwise repeat its parent's state)
    assert len({runs[name]["seen"]["np"] for name in runs}) == 3
    assert len({runs[name]["seen"]["py"] for name in runs}) == 3


def test_a_forked_child_runs_under_a_keeper_with_its_own_exit_code(probes):
    _, runs = probes
    for name, code in (("first", 0), ("second", 3), ("new", 0)):
        kept = runs[name]["kept"]
        assert kept.returncode == code and kept.child_pid not in (None, kept.pid)
    assert runs["first"]["kept"]._keeper is None and runs["new"]["kept"]._keeper is not None


def test_a_child_whose_environment_differs_beyond_what_tfcompare_sets_per_child_gets_a_new_process(probes):
    folder, _ = probes
    env = dict(os.environ, TMPDIR=str(folder / "tmp"), TF_USE_LEGACY_KERAS="0")
    env.pop("TFCOMPARE_SET_TF_USE_LEGACY_KERAS", None)
    # TensorFlow reads oneDNN's switch as it is imported: the warm process imported it under another value
    kept, _ = _run(folder, ["-m", "probe_mod", str(folder / "onednn.json"), "0"], dict(env, TF_ENABLE_ONEDNN_OPTS="0"))
    assert kept._keeper is not None and kept.returncode == 0
    kept, _ = _run(folder, ["-m", "probe_mod", str(folder / "pair.json"), "0"], dict(env, TFCOMPARE_PAIR_SEED="7"))
    assert kept._keeper is None and kept.returncode == 0  # a seed is the child's own: read after the import


def test_a_child_from_the_warm_process_starts_in_a_fraction_of_a_new_ones_time(probes):
    _, runs = probes
    # the second child forks a warm process that has imported TensorFlow; the new one imports it itself
    assert runs["second"]["s"] < 0.6 * runs["new"]["s"], {name: run["s"] for name, run in runs.items()}


def test_a_forked_childs_uncaught_exception_and_ctrl_c_end_it_as_they_end_python(tmp_path):
    (tmp_path / "raises.py").write_text("import sys, time\nprint('up', flush=True)\nif sys.argv[1] == 'raise':\n"
                                        "    raise ValueError('boom')\ntime.sleep(60)\n")
    env = dict(os.environ)
    warm_start.warm_up(env)
    kept, printed = _run(tmp_path, ["-m", "raises", "raise"], env)
    assert kept.returncode == 1 and "ValueError: boom" in printed and kept._keeper is None
    read, write = os.pipe()
    kept = Kept([sys.executable, "-m", "raises", "sleep"], cwd=tmp_path, keeper_cwd=tmp_path, env=env, stdout=write,
                warm=True)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        assert f.readline() == b"up\n"
        kept.send_signal(signal.SIGINT)  # through the keeper, as at a time limit
        assert kept.wait(timeout=30) == -signal.SIGINT
        kept.reap()
        assert b"KeyboardInterrupt" in f.read()


def test_a_script_that_sets_the_environment_gets_a_new_process(tmp_path):
    plain, sets = tmp_path / "plain.py", tmp_path / "sets.py"
    plain.write_text("import tensorflow as tf\n")
    sets.write_text("import os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\nimport tensorflow as tf\n")
    assert not _sets_environment(["-m", "m", str(plain), "3"]) and _sets_environment(["-m", "m", str(sets)])


def test_the_warm_process_ends_with_the_command_that_started_it(tmp_path):
    code = ("import os, sys, time\nfrom pathlib import Path\nfrom tfcompare.core.keeper import Kept\n"
            "from tfcompare.core import warm_start\nwarm_start.warm_up(dict(os.environ))\nr, w = os.pipe()\n"
            "kept = Kept([sys.executable, '-m', 'json.tool', '--help'], cwd=Path('.'), keeper_cwd=Path('.'), "
            "env=dict(os.environ), stdout=w, warm=True)\nassert kept.wait(60) == 0 and kept._keeper is None\n"
            "print(warm_start._WARM[0].proc.pid, flush=True)\n"
            "time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE)
    try:
        warm = int(proc.stdout.readline())
        assert Path(f"/proc/{warm}").exists()
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while Path(f"/proc/{warm}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{warm}").exists(), "the warm process outlived the command (SIGKILLed)"
    finally:
        proc.kill()
        proc.wait()


def test_a_child_whose_request_is_too_large_starts_as_a_new_process_and_the_warm_one_stays(probes):
    folder, _ = probes
    env = dict(os.environ, TMPDIR=str(folder / "tmp"), TF_USE_LEGACY_KERAS="0")
    env.pop("TFCOMPARE_SET_TF_USE_LEGACY_KERAS", None)
    big = dict(env, **{f"TFCOMPARE_BIG{k}": "x" * 40_000 for k in range(4)})  # 160 KB: over the 128 KB a request takes
    kept, _ = _run(folder, ["-m", "probe_mod", str(folder / "big.json"), "0"], big)
    assert kept._keeper is not None and kept.returncode == 0
    kept, _ = _run(folder, ["-m", "probe_mod", str(folder / "after.json"), "0"], env)
    assert kept._keeper is None and kept.returncode == 0  # the warm process still serves the next child
