"""convert's speed levers (`convert.levers`): a lever is written only when the rewrite with it still agrees under
`pair`, did not retrace while timed, and is faster beyond both intervals. The rule is asserted on injected
timings; one real conversion shows a planted lever that changes the numerics dropped and the real one judged on
its own measurement, the file saying so either way."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.scripts.convert import LEVERS, WRITTEN_AGREES, ConvertOptions, Lever, convert_script
from tfcompare.scripts.convert.levers import JIT_COMPILE, LeverTrial, judge, with_lever_note
from tfcompare.scripts.pair import AGREE, DIFFER, FAILED

DATA = Path(__file__).parent / "data" / "convert"

_STEP = "@tf.function{}\ndef train_step(x, y):\n    return x\n"


@pytest.mark.parametrize("decorator, written", [
    ("", "(jit_compile=True)"),
    ("()", "(jit_compile=True)"),
    ("(input_signature=[tf.TensorSpec([None, 4], tf.float32)])",
     "(jit_compile=True, input_signature=[tf.TensorSpec([None, 4], tf.float32)])"),
])
def test_the_jit_lever_changes_only_the_steps_decorator(decorator, written):
    text = "import tensorflow as tf\n\n@tf.function\ndef loss(x):\n    return x\n\n" + _STEP.format(decorator)
    assert JIT_COMPILE.apply(text) == text.replace(_STEP.format(decorator), _STEP.format(written))


def test_the_jit_lever_breaks_a_decorator_it_makes_longer_than_a_line():
    """A one-line decorator of 100 columns is 118 with `jit_compile=True, `: broken one argument per line."""
    specs = "tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32)"
    decorator = f"(input_signature=[{specs}])"
    assert len(f"@tf.function{decorator}") == 100
    text = "import tensorflow as tf\n\n" + _STEP.format(decorator)
    written = JIT_COMPILE.apply(text)
    assert written == text.replace(f"@tf.function{decorator}\n", (
        "@tf.function(jit_compile=True, input_signature=[\n"
        "    tf.TensorSpec([None], tf.float32),\n"
        "    tf.TensorSpec([None], tf.float32),\n"
        "])\n"))
    compile(written, "<lever>", "exec")


_MODEL = """class Model(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        return x

    @tf.function(
        input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int64)])
    def loss(self, x, y):
        return self.scaled(self(x)) + y

    @tf.function
    def scaled(self, t):
        return 2 * t

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def accuracy(self, x):
        return self(x)


@tf.function
def train_step(x, y):
    return model.loss(x, y)
"""


def test_the_jit_lever_inlines_the_model_methods_the_step_calls_and_no_others():
    """Nested in an XLA-compiled step, a method's own tf.function takes the variables' values as compile-time
    constants and the step compiles on every call: the methods the step reaches lose their decorator."""
    written = JIT_COMPILE.apply(_MODEL)
    assert written.count("@tf.function") == 2  # accuracy's, and the step's
    assert "    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])\n    def accuracy" in written
    assert "@tf.function(jit_compile=True)\ndef train_step(x, y):" in written
    for name in ("__call__(self, x)", "loss(self, x, y)", "scaled(self, t)"):
        assert f"\n\n    def {name}:" in written or f"(tf.Module):\n    def {name}:" in written
    compile(written, "written.py", "exec")


@pytest.mark.parametrize("outside, applies", [
    ("prediction = model(test_x).numpy()", False),  # __call__, inlined into the step, read after the loop
    ("print(model.loss(test_x, test_y))", False),
    ("print(model.accuracy(test_x).numpy())", True),  # accuracy keeps its decorator: nothing it casts is lost
])
def test_the_jit_lever_does_not_strip_a_method_the_script_also_calls_outside_the_step(outside, applies):
    """Outside the step a method's tf.function casts the inputs (float64 NumPy data) as TF1's feed did: stripped,
    MorvanZhou's prediction after the loop failed on its own (a kept lever, found on the corpus)."""
    assert (JIT_COMPILE.apply(_MODEL + "\n\n" + outside + "\n") is not None) == applies


@pytest.mark.parametrize("text", [
    _STEP.format("(jit_compile=False)"),  # the script's own choice stays
    "def train_step(x):\n    return x\n",  # no decorator to change
    _STEP.format("") + "\n" + _STEP.format(""),  # two: which one is the step is not ours to guess
])
def test_the_jit_lever_does_not_apply_where_there_is_no_single_plain_step(text):
    assert JIT_COMPILE.apply(text) is None


def _timing(estimate, low, high, retraces=0):
    return {"timed": True, "speedup": {"estimate": estimate, "low": low, "high": high}, "retraces": retraces}


@pytest.mark.parametrize("status, plain, lever, kept, why", [
    (AGREE, _timing(1.0, 0.9, 1.1), _timing(1.5, 1.2, 1.8), True,
     "TF2 step 1.50x (95% CI 1.20-1.80) TF1's speed with it, 1.00x (95% CI 0.90-1.10) without; pair agrees with it"),
    (AGREE, _timing(1.0, 0.9, 1.1), _timing(1.3, 1.1, 1.5), False,  # touching intervals are not apart
     "TF2 step 1.30x (95% CI 1.10-1.50) TF1's speed with it, 1.00x (95% CI 0.90-1.10) without: not faster beyond "
     "both intervals"),
    (AGREE, _timing(1.0, 0.9, 1.1), _timing(0.5, 0.4, 0.6), False, "not faster beyond both intervals"),
    (DIFFER, _timing(1.0, 0.9, 1.1), _timing(3.0, 2.5, 3.5), False,
     "pair says differ with it (the rewrite without it agrees): it changes what the step computes"),
    (FAILED, _timing(1.0, 0.9, 1.1), {}, False,
     "pair could not compare the rewrite with it (the TF2 script failed before its first training step: X)"),
    (AGREE, _timing(1.0, 0.9, 1.1), _timing(3.0, 2.5, 3.5, retraces=2), False,
     "the step retraced 2 time(s) while timed with it"),
    (AGREE, _timing(1.0, 0.9, 1.1), {"timed": False, "why": "a side stopped before its turn"}, False,
     "not timed (a side stopped before its turn): a lever is written only when it is measured faster"),
])
def test_a_lever_is_kept_only_when_it_agrees_and_its_interval_is_wholly_faster(status, plain, lever, kept, why):
    trial = judge(LeverTrial("jit_compile", "x"), status, plain, lever,
                  "the TF2 script failed before its first training step: X")
    assert trial.kept is kept
    assert why in trial.why
    assert trial.line().startswith(f"lever jit_compile: {'WRITTEN' if kept else 'not written'}: ")


def test_the_note_says_what_was_measured_above_the_step():
    trial = judge(LeverTrial("jit_compile", "x"), AGREE, _timing(1.0, 0.9, 1.1), _timing(2.0, 1.5, 2.5))
    text = with_lever_note(_STEP.format("(jit_compile=True)"), trial, "2 CPU cores, load 0.5")
    assert text.splitlines()[:3] == [
        "# jit_compile: written by tfcompare convert, measured faster (2 CPU cores, load 0.5), pair agreeing:",
        "# TF2 step 2.00x (95% CI 1.50-2.50) TF1's speed with it, 1.00x (95% CI 0.90-1.10) without",
        "@tf.function(jit_compile=True)"]


def test_levers_are_named_objects_checked_when_the_options_are_made():
    with pytest.raises(ValueError, match="a lever's name is a lowercase identifier"):
        Lever("../x", "x", lambda text: text)
    with pytest.raises(ValueError, match="levers must be distinct Lever objects"):
        ConvertOptions(levers=(JIT_COMPILE, JIT_COMPILE))
    with pytest.raises(ValueError, match="levers must be distinct Lever objects"):
        ConvertOptions(levers=("jit_compile",))
    assert ConvertOptions().levers == LEVERS == (JIT_COMPILE,)


def test_the_cli_tries_the_levers_by_default_and_not_with_no_levers(tmp_path, monkeypatch):
    """The CLI's one library call gets the registry's levers, or none with --no-levers (the conversion itself is
    the test below; here only what the CLI asks for)."""
    asked = []

    def record(old, new, options):
        asked.append(options.levers)
        raise SystemExit(0)
    monkeypatch.setattr("tfcompare.scripts.convert.convert_script", record)
    for extra in ([], ["--no-levers"]):
        CliRunner().invoke(cli, ["convert", str(DATA / "logreg_gd.py"), "-o", str(tmp_path / "new.py"), *extra])
    assert asked == [LEVERS, ()]


def _doubled_gradients(text: str) -> str | None:
    """A planted 'lever' that changes what the step computes: every gradient doubled before it is applied."""
    old = "optimizer.apply_gradients(zip(gradients,"
    return text.replace(old, "optimizer.apply_gradients(zip([g * 2 for g in gradients],") if old in text else None


PLANTED = Lever("doubled", "every gradient doubled (planted: changes the numerics)", _doubled_gradients)


def test_a_lever_that_changes_the_numerics_is_dropped_and_the_real_one_is_judged_on_its_measurement(tmp_path):
    new = tmp_path / "logreg_tf2.py"
    result = convert_script(DATA / "logreg_gd.py", new, ConvertOptions(levers=(PLANTED, JIT_COMPILE)))
    assert result.status == WRITTEN_AGREES, result.lines()
    planted, jit = result.levers
    assert (planted.name, planted.kept, planted.pair_status) == ("doubled", False, DIFFER)
    text = new.read_text()
    assert "[g * 2 for g in gradients]" not in text  # dropped: the file is the rewrite that agrees
    plain = result.pair.timing["speedup"] if not jit.kept else jit.plain_speedup
    assert planted.plain_speedup == plain and plain["low"] <= plain["estimate"] <= plain["high"]
    assert jit.pair_status == AGREE and jit.speedup is not None
    if jit.kept:  # measured faster beyond both intervals: written, with what was measured, and proven as written
        assert jit.speedup["low"] > jit.plain_speedup["high"]
        assert "@tf.function(jit_compile=True" in text
        assert f"# TF2 step {jit.speedup['estimate']:.2f}x (95% CI {jit.speedup['low']:.2f}-" in text
        assert result.pair.tf2_script == str(new) and result.pair.timing["speedup"] == jit.speedup
        assert result.alone["ended"] in ("stopped", "finished") and result.alone["steps"] >= 1
    else:  # not faster beyond both intervals on this machine now: the plain rewrite, unchanged
        assert jit.speedup["low"] <= jit.plain_speedup["high"]
        assert "jit_compile" not in text and "not faster beyond both intervals" in jit.why
    printed = "\n".join(result.lines())
    assert planted.line() in printed and jit.line() in printed
    assert json.loads(result.json_text())["levers"][0]["pair_status"] == DIFFER
    assert not [p for p in tmp_path.iterdir() if re.match(r"\.tfcompare-lever-", p.name)]  # hidden files removed
