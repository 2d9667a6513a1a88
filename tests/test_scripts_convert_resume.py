"""A script that resumes from its folder's checkpoints: the proof's children each run in a working copy of the
folder (the TF2 side never reads what the TF1 side saved during the pair, and nothing is written into the user's
folder), and the rewrite resumes from the TF1 script's checkpoints, then from its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import tensorflow as tf

from tfcompare.scripts.child.workdir import LEVELS, working_copy
from tfcompare.scripts.convert import ConvertOptions, convert_script

# a 2017-style script: resume from the folder's latest checkpoint if there is one, save every step; the train op
# keeps a moving average of the weights (the CIFAR-10 tutorial's), which its Saver saves and restores too
_RESUMING = textwrap.dedent("""\
    import os
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(tf.ones([2, 1]))
    loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
    global_step = tf.Variable(0, trainable=False, name="global_step")
    opt = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.9, global_step)
    with tf.control_dependencies([opt]):
        averages_op = ema.apply(tf.trainable_variables())
    train = tf.group(opt, averages_op)
    save_dir = "save"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver = tf.train.Saver(max_to_keep=2)
        ckpt = tf.train.latest_checkpoint(save_dir)
        if ckpt:
            saver.restore(sess, ckpt)
            print("restored", ckpt)
        for step in range(4):
            l, _ = sess.run([loss, train], feed_dict={x: np.ones((4, 2), np.float32)})
            p = saver.save(sess, os.path.join(save_dir, "model.ckpt"), global_step=step)
            print("saved", p, "%.6f" % l)
""")
_AS_TF1 = ("import runpy, sys\nimport tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
           "sys.modules['tensorflow'] = tf\nrunpy.run_path(sys.argv[1], run_name='__main__')\n")


def test_a_working_copy_reads_as_the_folder_and_keeps_its_writes(tmp_path):
    """Folders made again, files linked, `../` up to LEVELS folders read through; a new file or one renamed over
    stays in the copy; a copy made inside the folder it copies does not copy itself."""
    project = tmp_path / "a" / "b" / "project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "x.txt").write_text("x")
    (project / "save").mkdir()
    (project / "save" / "checkpoint").write_text("trained")
    (tmp_path / "a" / "shared.txt").write_text("shared")
    (tmp_path / "top.txt").write_text("top")  # LEVELS (3) folders above the script's
    within = tmp_path / "pair"
    within.mkdir()
    cwd = working_copy(project, within, "tf1")
    assert cwd.name == "project" and cwd.parent.parent.parent.parent == within
    assert (cwd / "data" / "x.txt").read_text() == "x" and (cwd / "../../shared.txt").read_text() == "shared"
    assert (cwd / "data").is_dir() and not (cwd / "data").is_symlink() and (cwd / "data" / "x.txt").is_symlink()
    assert (cwd / ("../" * LEVELS) / "top.txt").read_text() == "top"
    assert cwd.parents[LEVELS - 1].parent == Path(os.path.realpath(within))  # and no folder above those
    (cwd / "save" / "new").write_text("new")
    tmp = cwd / "save" / "checkpoint.tmp"
    tmp.write_text("from the run")
    os.replace(tmp, cwd / "save" / "checkpoint")  # TensorFlow's atomic write of the state file
    (cwd / "data" / "x.txt").unlink()
    assert sorted(p.name for p in (project / "save").iterdir()) == ["checkpoint"]
    assert (project / "save" / "checkpoint").read_text() == "trained" and (project / "data" / "x.txt").exists()
    inner = working_copy(tmp_path, tmp_path / "pair", "tf2")  # the pair's folder is inside the copied one
    assert not (inner / "pair").exists() and (inner / "a" / "shared.txt").read_text() == "shared"


def _tf1(script: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", _AS_TF1, script.name], cwd=script.parent, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _tf2(script: Path) -> str:
    env = {k: v for k, v in os.environ.items() if "LEGACY_KERAS" not in k}  # as its user runs it
    proc = subprocess.run([sys.executable, script.name], cwd=script.parent, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "unrestored values" not in proc.stderr, proc.stderr[-2000:]
    return proc.stdout


def _weights(path: str) -> tuple[np.ndarray, np.ndarray]:
    """The one weight of the model in a checkpoint and its moving average, TF1's (`Variable`,
    `Variable/ExponentialMovingAverage`) or the rewrite's (`model/...`, `averages/0/...`)."""
    reader = tf.train.load_checkpoint(path)
    names = [n for n, _ in tf.train.list_variables(path) if n == "Variable" or
             n.startswith("model/") and n.endswith("VARIABLE_VALUE")]
    shadows = [n for n, _ in tf.train.list_variables(path) if n == "Variable/ExponentialMovingAverage" or
               n.startswith("averages/") and n.endswith("VARIABLE_VALUE")]
    assert len(names) == 1 and len(shadows) == 1, (names, shadows)
    return reader.get_tensor(names[0]), reader.get_tensor(shadows[0])


def test_a_resuming_script_is_proven_and_its_rewrite_resumes_from_tf1s_checkpoint_then_its_own(tmp_path):
    """Before: the TF2 side restored the checkpoint the TF1 side saved during the pair (a false DIFFER), and a
    TF1 checkpoint read as a TF2 one restored nothing, silently. Now the proof agrees and leaves the folder as it
    was; the rewrite restores TF1's weights by name, saves PATH-STEP with a `checkpoint` file (every one kept, TF1's
    too), and its next run restores its own."""
    script = tmp_path / "resume.py"
    script.write_text(_RESUMING)
    new = tmp_path / "resume_tf2.py"
    result = convert_script(script, new, ConvertOptions(levers=()))
    assert result.status == "agree" and result.todos == [], (result.status, result.error, result.todos)
    assert result.alone["ended"] == "stopped" and result.alone["steps"] == 3, result.alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resume.py", "resume_tf2.py"]  # nothing else written
    text = new.read_text()
    assert "restore_checkpoint(ckpt)\n" in text and "p = save_checkpoint(os.path.join(save_dir, 'model.ckpt'), " \
        "step)\n" in text, text
    assert "max_to_keep=None" in text and all(len(line) <= 100 for line in text.splitlines())

    tf1_out = _tf1(script)  # the team's TF1 training: save/model.ckpt-2, -3 (max_to_keep=2)
    tf1_final, tf1_average = _weights(str(tmp_path / "save" / "model.ckpt-3"))
    assert not np.allclose(tf1_average, 1.0)  # moved from the initial weights
    tf1_files = sorted(p.name for p in (tmp_path / "save").iterdir())
    assert "saved save/model.ckpt-3" in tf1_out and "model.ckpt-2.index" in tf1_files, tf1_files

    _converts_with_its_averages_and_step(tmp_path, tf1_final, tf1_average)

    first = _tf2(new)
    assert first.splitlines()[0] == "restored save/model.ckpt-3", first
    # its first step starts from TF1's trained weights: the loss printed is TF1's loss at those weights
    x = np.ones((4, 2), np.float32)
    expected = float(np.mean((x @ tf1_final) ** 2))
    assert abs(float(first.splitlines()[1].split()[-1]) - expected) <= 1e-5 * max(1.0, expected), (first, expected)
    saved = sorted(p.name for p in (tmp_path / "save").iterdir())
    assert {"model.ckpt-2.meta", "model.ckpt-3.meta"} <= set(saved)  # TF1's files are not deleted
    assert tf.train.latest_checkpoint(str(tmp_path / "save")).endswith("model.ckpt-3")
    tf2_last, tf2_average = _weights(str(tmp_path / "save" / "model.ckpt-3"))
    assert not np.allclose(tf2_last, tf1_final)  # the rewrite's own, trained on from TF1's
    # its moving average went on from TF1's, not from the initial weights, and its step count from TF1's global
    # step (4): after one step the average is d * TF1's + (1 - d) * the weight that step made, d = min(0.9,
    # (1 + 5) / (10 + 5)) (before: the shadow restarted at the initial weights and the count at 0, d = 2 / 11, and
    # the rewrite's checkpoints did not hold the averages at all)
    first_weight, first_average = _weights(str(tmp_path / "save" / "model.ckpt-0"))
    decay = min(0.9, 6 / 15)
    np.testing.assert_allclose(first_average, decay * tf1_average + (1 - decay) * first_weight, rtol=1e-6, atol=1e-7)

    second = _tf2(new)
    assert second.splitlines()[0] == "restored save/model.ckpt-3", second
    expected = float(np.mean((x @ tf2_last) ** 2))
    assert abs(float(second.splitlines()[1].split()[-1]) - expected) <= 1e-5 * max(1.0, expected), (second, expected)
    second_weight, second_average = _weights(str(tmp_path / "save" / "model.ckpt-0"))  # from its own: step 9
    decay = min(0.9, 10 / 19)
    np.testing.assert_allclose(second_average, decay * tf2_average + (1 - decay) * second_weight, rtol=1e-6,
                               atol=1e-7)


def _converts_with_its_averages_and_step(tmp_path: Path, tf1_final: np.ndarray, tf1_average: np.ndarray) -> None:
    """`convert-checkpoint` writes the checkpoint the rewrite's `restore_checkpoint` reads: the model, the
    optimizer with TF1's global step as its count, the averages' shadows; proven by that function. Before: the
    model alone, which `restore_checkpoint` refused (the optimizer's variables unmatched), the shadows and the step
    listed as left."""
    from click.testing import CliRunner

    from tfcompare.cli import cli

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(cli, ["convert-checkpoint", "resume_tf2.py", "save/model.ckpt-3", "-o", "tf2/model"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    assert "loaded 3 TF1 variable(s) by name: Variable, Variable/ExponentialMovingAverage, global_step" in \
        result.output, result.output
    assert "CONVERTED: 3 variable(s) read back from tf2/model by the rewrite's restore_checkpoint(), as strictly as " \
        "it reads its own checkpoints" in result.output
    left = {line.split(":")[0].strip() for line in result.output.splitlines() if line.startswith("  ")}
    assert left == {"Variable/Adam", "Variable/Adam_1", "beta1_power", "beta2_power"}, result.output
    weight, average = _weights(str(tmp_path / "tf2" / "model"))
    np.testing.assert_array_equal(weight, tf1_final)
    np.testing.assert_array_equal(average, tf1_average)
    assert tf.train.load_checkpoint(str(tmp_path / "tf2" / "model")).get_tensor(
        "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 4  # TF1's global step after its 4 steps
    assert sorted(p.name for p in (tmp_path / "tf2").iterdir()) == ["model.data-00000-of-00001", "model.index"]


def test_a_folder_past_the_link_budget_is_linked_whole_and_a_huge_folder_above_is_not_listed(tmp_path, monkeypatch):
    """A dataset's folder of many files is one link (its writes are the original's), not a link per file; the
    folders above stop at one with more entries than the budget."""
    from tfcompare.scripts.child import workdir

    monkeypatch.setattr(workdir, "_MIRRORED", 4)
    project = tmp_path / "crowded" / "project"
    (project / "images").mkdir(parents=True)
    for i in range(6):
        (project / "images" / f"{i}.png").write_bytes(b"")
        (tmp_path / "crowded" / f"sibling{i}").write_text("")
    (project / "small").mkdir()
    (project / "small" / "a.txt").write_text("a")
    within = tmp_path / "pair"
    within.mkdir()
    cwd = working_copy(project, within, "tf1")
    assert (cwd / "images").is_symlink() and len(list((cwd / "images").iterdir())) == 6
    assert (cwd / "small").is_dir() and not (cwd / "small").is_symlink() and (cwd / "small" / "a.txt").is_symlink()
    assert cwd.name == "project" and cwd.parent.parent == Path(os.path.realpath(within))  # `crowded` is huge
    assert sorted(p.name for p in cwd.parent.iterdir()) == ["project"]
