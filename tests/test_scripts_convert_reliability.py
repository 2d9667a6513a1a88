"""`tfcompare convert` (and run-tf1 and pair where they share the path) against a hostile user (issue 34): a file
name that is code, a NEW.py saved or swapped for a link while convert runs, output paths that cannot be written,
inputs that are not regular files, a PEP 263 coding line, a non-finite constant, and --json agreeing with the exit
code. One real conversion (its child and its pair, and a Keras-style child beside it) covers the hostile name, the
latin-1 source and the infinite constant at once; everything else runs in-process, with the TF1 child replaced
where the point is what convert does around it.
"""

from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import io
import json
import math
import os
import re
import threading
import tokenize
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import tfcompare.scripts.convert as convert_module
from tfcompare.cli import cli
from tfcompare.scripts.convert.line_width import MAX_LINE

from conftest import provenance

DATA = Path(__file__).parent / "data" / "convert"
OLD = DATA / "logreg_gd.py"
PAIR_TF2 = Path(__file__).parent / "data" / "pairs" / "tf2_logreg.py"
# quotes, triple quotes, a newline, `#`, `{}`, a backslash and non-ASCII: as a docstring unescaped, code that runs
HOSTILE = 'x"""+str(__import__("os").system("touch PWNED"))+"""\n# {0} \\ é\'.py'
LONG = "n" * 300


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _hostile_script(folder: Path) -> Path:
    """logreg_gd.py under HOSTILE's name, in latin-1 with its coding line, hostile text in a comment the rewrite
    carries (a TF1 line), in a TODO it writes, and an infinite constant in a harmless place (min(logits, inf))."""
    s = "# -*- coding: latin-1 -*-\n" + OLD.read_text()
    s = _edit(s, "import argparse\n", 'import argparse  # caf\xe9 """ \\ {x}\n')
    s = _edit(s, "W = tf.Variable(tf.zeros([20, 3]))", 'W = tf.Variable(tf.zeros([20, 3]))  # """+{}\\\xe9 #')
    s = _edit(s, "pred = tf.nn.softmax(tf.matmul(x, W) + b)",
              'pred = tf.nn.softmax(tf.minimum(tf.matmul(x, W) + b, tf.constant(float("inf"))))')
    s = _edit(s, '    print("Optimization Finished!")',
              '    print("Optimization Finished! r\xe9sultat")\n'
              '    graph_def = sess.graph.as_graph_def()  # """+str(__import__("os").system("touch PWNED"))+""" \\ {} \xe9')
    path = folder / HOSTILE
    path.write_bytes(s.encode("latin-1"))
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """One real `tfcompare convert --json` of the hostile script (module style, proven by pair), and beside it a
    Keras-style conversion (its child only), run from the script's folder so any `touch PWNED` lands there."""
    folder = tmp_path_factory.mktemp("hostile")
    script = _hostile_script(folder)
    here = os.getcwd()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        keras = pool.submit(convert_module.convert_script, script, folder / "keras_tf2.py",
                            convert_module.ConvertOptions(args=("--steps", "3"), style="keras", check=False))
        os.chdir(folder)
        try:
            result = CliRunner().invoke(cli, ["convert", str(script), "-o", str(folder / "module_tf2.py"), "--json",
                                              "--no-levers", "--", "--steps", "3"])
        finally:
            os.chdir(here)
        keras_result = keras.result()
    return folder, result, keras_result


def _code_names(text: str) -> set[str]:
    """The names the source uses as code (not inside a string or a comment)."""
    return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME}


def _words(text: str) -> str:
    """The text with its whitespace runs as single spaces: docstrings are wrapped to 100 columns."""
    return " ".join(text.split())


def test_a_hostile_file_name_is_data_in_the_rewrite_and_no_code_runs(hostile):
    folder, result, keras_result = hostile
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "agree"
    assert keras_result.error == "" and keras_result.status == convert_module.WRITTEN_DIFFERS  # check=False: unproven
    assert not list(folder.rglob("PWNED")) and not Path("PWNED").exists()  # neither the proof nor a compile ran it
    for name, cls in (("module_tf2.py", "tf.Module"), ("keras_tf2.py", "keras.Model")):
        text = (folder / name).read_bytes().decode("utf-8")
        tree = ast.parse(text)
        compile(tree, name, "exec")
        # the script's docstring as written, the rewrite's note below it: the file name escaped in a comment
        assert ast.get_docstring(tree).startswith("Logistic regression in the style of the public TF1 examples")
        note = [line for line in text.splitlines() if line.startswith("# TF2 rewrite of ")]
        assert len(note) == 1 and note[0].startswith('# TF2 rewrite of x\\"\\"\\"+str(__import__(\\"os\\")'), note
        model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
        assert _words(ast.get_docstring(model)).startswith(_words(f"The TF1 graph of {HOSTILE}: "))
        assert f"class Model({cls}):" in text
        assert "__import__" not in _code_names(text) and "system" not in _code_names(text)
    text = (folder / "module_tf2.py").read_text(encoding="utf-8")
    model_code = text.split("class Model")[1].split("model = Model()")[0]
    assert 22 in provenance(text, "self.W = tf.Variable(")
    # the script's own comment on that line is carried above it, a comment line and nothing else
    assert '        # """+{}\\\xe9 #\n        self.W = tf.Variable(' in model_code, model_code
    assert all(line.lstrip().startswith("#") for line in model_code.splitlines() if '"""+{}' in line)
    # a TODO's text past 100 columns goes on `#     ` lines below its mark: joined, it reads as the TF1 line did
    joined = re.sub(r"\n[ \t]*#     ", " ", text)
    assert ('pass  # TODO(tfcompare): TF1 graph code run after the first training step from TF1 line 38: graph_def = '
            'sess.graph.as_graph_def()  # """+str(__import__("os").system("touch PWN\n') in joined
    assert [line for line in text.splitlines() if "TODO(tfcompare)" in line and len(line) > MAX_LINE] == []


def test_a_latin1_script_converts_and_its_rewrite_is_utf8(hostile):
    """The coding line is honoured where the script is read (the child, the writer) and not carried: NEW.py is
    UTF-8, so Python reads its non-ASCII text back as the TF1 script's."""
    folder, result, _ = hostile
    assert result.exit_code == 0, result.output
    data = (folder / "module_tf2.py").read_bytes()
    assert tokenize.detect_encoding(io.BytesIO(data).readline)[0] == "utf-8"
    assert b"coding" not in data and 'print("Optimization Finished! résultat")'.encode() in data
    compile(data, "module_tf2.py", "exec")


def test_an_infinite_constant_is_written_as_float_inf_and_the_proof_agrees(hostile):
    folder, result, _ = hostile
    assert result.exit_code == 0, result.output
    text = (folder / "module_tf2.py").read_text(encoding="utf-8")
    assert 'pred = tf.nn.softmax(tf.minimum(tf.matmul(x, self.W) + self.b, float("inf")))\n' in text
    assert 24 in provenance(text, "pred = tf.nn.softmax(tf.minimum(")
    report = json.loads(result.stdout)
    assert report["status"] == report["pair"]["status"] == "agree"
    checks = report["pair"]["checks"]
    assert len(checks) == 3 and all(c[k] for c in checks for k in ("loss_ok", "gradients_ok", "weights_ok"))
    assert [c["loss_tf1"] for c in checks] == [c["loss_tf2"] for c in checks]  # not NaN: inf bounds nothing here


# -- what is written into generated code, in-process --------------------------------------------------------------

_NAMES = [HOSTILE, 'a"', 'a"""b', "ends with a quote\"", "back\\slash\\", "new\nline\r\n", "#{}{0}", "é ü 中",
          "\x0c\x1c\u2028\x85", "undecodable \udcff", "'single' and \"double\""]


@pytest.mark.parametrize("name", _NAMES)
def test_a_name_in_a_docstring_reads_back_as_itself_on_one_line(name):
    from tfcompare.core.generated_code import in_docstring

    source = f'"""TF2 rewrite of {in_docstring(name)}, written."""\nx = 1\n'
    assert len(source.splitlines()) == 2
    assert ast.get_docstring(ast.parse(source)) == f"TF2 rewrite of {name}, written."


@pytest.mark.parametrize("value,text", [
    (np.float32("nan"), 'float("nan")'), (np.float32("inf"), 'float("inf")'), (np.float32("-inf"), '-float("inf")'),
    (float("inf"), 'float("inf")'), (np.float64("-inf"), '-float("inf")'), (np.float32(0.1), "0.1"), (3, "3"),
])
def test_a_number_is_written_so_it_reads_back(value, text):
    from tfcompare.scripts.convert.ops import number

    assert number(value) == text
    back = eval(text)
    assert (math.isnan(back) and math.isnan(value)) or back == value


def test_an_array_and_a_dict_with_non_finite_values_read_back():
    from tfcompare.core.generated_code import literal

    array = np.array([[1.5, np.nan], [np.inf, -np.inf]], np.float32)
    text = literal(array)
    assert text == '[[1.5, float("nan")], [float("inf"), -float("inf")]]'
    np.testing.assert_array_equal(np.array(eval(text), np.float32), array)
    assert eval(literal({"keep": float("nan"), "rate": (0.5,)}))["rate"] == (0.5,)


def test_a_constant_array_with_infinities_is_translated_and_exact():
    """TF1's `tf.minimum(x, [1, inf, -inf])` written by the translator runs in TF2 and gives TF1's value."""
    import tensorflow as tf

    from tfcompare.scripts.convert.ops import Translator

    v1 = tf.compat.v1
    graph = tf.Graph()
    feed = np.array([[0.5, 2.0, 3.0], [4.0, -5.0, 6.0]], np.float32)
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        target = tf.minimum(x, tf.constant([1.0, float("inf"), float("-inf")])) * 2.0
        with v1.Session(graph=graph) as sess:
            expected = sess.run(target, {x: feed})
            lines, expr = Translator("<test>", [], sess, {}, {}, {x.op.name: "x"}, {}).function(target)
    code = "\n".join(line.code for line in lines) + f"\nresult = {expr}"
    assert 'float("inf"), -float("inf")]' in code
    scope = {"tf": tf, "x": tf.constant(feed)}
    exec(compile(code, "<written>", "exec"), scope)
    np.testing.assert_array_equal(scope["result"].numpy(), expected)


def test_a_cases_file_escapes_the_names_it_writes(tmp_path):
    """`pair --emit-case` writes the scripts' and its own names into a docstring, and the feeds' values: data."""
    from tfcompare.scripts.pair import PairResult
    from tfcompare.scripts.pair.emit import case_text

    result = PairResult(str(tmp_path / HOSTILE), str(tmp_path / "tf2.py"), 3)
    result.case = {"tf1_script": str(tmp_path / HOSTILE), "tf2_script": str(tmp_path / f"tf2 {HOSTILE}"),
                   "feeds": [{"name": "x", "shape": [20], "dtype": "float32", "kind": "float", "high": None}],
                   "inputs": [{"leaf": 0, "feed": "x", "convert": "none", "shape": [20], "dtype": "float32"}],
                   "pairing": {"W": 0}, "scalars": {"keep_prob": float("nan")}, "batch_size": 50}
    out = tmp_path / 'case"""x.py'
    text = case_text(result, out)
    tree = ast.parse(text)
    doc = ast.get_docstring(tree)
    assert f": {HOSTILE} (TF1) and tf2 {HOSTILE} (TF2)\n" in doc and 'tfcompare run --cases-file case"""x.py' in doc
    assert "__import__" not in _code_names(text)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "script_case")
    scalars = next(k.value for k in call.keywords if k.arg == "scalars")
    assert math.isnan(eval(compile(ast.Expression(scalars), "<case>", "eval"))["keep_prob"])


# -- NEW.py: never replaced unchecked, never written through a link ------------------------------------------------

def _fake_tf1(monkeypatch, during=None, text: str = "# the rewrite\n") -> list:
    """The TF1 child replaced (its report, as if it had read the script), running `during` while it "runs"."""
    calls = []

    def read(old, options, limit=None):
        calls.append(old)
        if during is not None:
            during()
        return {"status": "ok", "text": text, "todos": [], "notes": [], "dropout": []}

    monkeypatch.setattr(convert_module, "_read_tf1", read)
    return calls


def _fake_pair(monkeypatch, status: str = "agree", during=None) -> list:
    calls = []

    def pair(tf1, tf2, options):
        calls.append(tf2)
        if during is not None:
            during()
        return convert_module.PairResult(str(tf1), str(tf2), options.steps, status=status,
                                         error="" if status == "agree" else "the TF2 script failed")

    monkeypatch.setattr(convert_module, "pair_scripts", pair)
    return calls


def _convert(*args):
    return CliRunner().invoke(cli, ["convert", "--no-levers", *map(str, args)])


def test_a_file_saved_at_o_while_convert_runs_is_not_replaced(tmp_path, monkeypatch):
    new = tmp_path / "new.py"
    _fake_tf1(monkeypatch, during=lambda: new.write_bytes(b"mine\x00\xff"))  # after the check, before the write
    proofs = _fake_pair(monkeypatch)
    result = _convert(OLD, "-o", new, "--json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "failed" and report["pair"] is None and proofs == []
    assert report["error"] == (f"{new} was not written: a file appeared there while convert ran (saved by another "
                               "program or another convert?); it is left as it is")
    assert new.read_bytes() == b"mine\x00\xff" and sorted(p.name for p in tmp_path.iterdir()) == ["new.py"]


def test_force_never_writes_through_a_link(tmp_path, monkeypatch):
    other = tmp_path / "other.py"
    other.write_text("# someone else's\n")
    link = tmp_path / "new.py"
    link.symlink_to(other)
    ran = _fake_tf1(monkeypatch)
    result = _convert(OLD, "-o", link, "--force")
    assert result.exit_code == 2 and ran == []
    assert f"'{link}' is a symbolic link (to '{other}'); tfcompare never writes through or replaces a link" in \
        result.output
    assert other.read_text() == "# someone else's\n" and link.is_symlink()


def test_force_replaces_a_file_but_not_the_link_it_became_while_convert_ran(tmp_path, monkeypatch):
    other, new = tmp_path / "other.py", tmp_path / "new.py"
    other.write_text("# someone else's\n")
    new.write_text("# the old rewrite\n")

    def swap():
        new.unlink()
        new.symlink_to(other)
    _fake_tf1(monkeypatch, during=swap)
    result = _convert(OLD, "-o", new, "--force")
    assert result.exit_code == 3, result.output
    assert f"{new} was not written: it is now a symbolic link; it is left as it is" in result.output
    assert other.read_text() == "# someone else's\n" and new.is_symlink()

    new.unlink()
    new.write_text("# the old rewrite\n")
    _fake_tf1(monkeypatch)
    proofs = _fake_pair(monkeypatch)
    result = _convert(OLD, "-o", new, "--force")
    assert result.exit_code == 0, result.output
    assert new.read_text() == "# the rewrite\n" and proofs == [new]


def test_a_rewrite_replaced_while_pair_proves_it_is_no_verdict(tmp_path, monkeypatch):
    """A second convert (or an editor) writing NEW.py during the proof: pair's agree is about another file."""
    new = tmp_path / "new.py"
    _fake_tf1(monkeypatch)
    _fake_pair(monkeypatch, during=lambda: new.write_text("# another convert's\n"))
    result = _convert(OLD, "-o", new, "--json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "failed" and report["pair"]["status"] == "agree"
    assert report["error"] == (f"{new} changed while pair proved it (another program or convert wrote it?): the "
                               "verdict is not about the rewrite")
    assert new.read_text() == "# another convert's\n"


def test_a_proof_that_could_not_compare_says_failed_with_exit_3(tmp_path, monkeypatch):
    """--json's status is the exit code's: pair could not compare (the rewrite crashed) is "failed", exit 3, not
    "differ" (exit 1's word)."""
    new = tmp_path / "new.py"
    _fake_tf1(monkeypatch)
    _fake_pair(monkeypatch, status="failed")
    result = _convert(OLD, "-o", new, "--json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "failed"
    assert report["error"] == f"{new} is written, but pair could not compare it: the TF2 script failed"
    text = _convert(OLD, "-o", tmp_path / "again.py")
    assert text.exit_code == 3 and f"NOT PROVEN: {tmp_path / 'again.py'} is written, but pair could not" in text.output


# -- every output path checked before any script runs --------------------------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["convert", "{old}", "-o", "missing/new.py"], "the folder '{tmp}/missing' does not exist"),
    (["convert", "{old}", "-o", "/proc/new.py"], "cannot write '/proc/new.py': the folder '/proc'"),
    (["convert", "{old}", "-o", LONG + ".py"], "'nnnnnnnnnnnnnnnnnnnn"),
    (["convert", "{old}", "-o", LONG + ".py"], "is 303 bytes; a file or folder name has at most"),
    (["convert", "{old}", "-o", ""], "the file name is empty"),
    (["convert", "{old}", "-o", "existing.py"], "'existing.py' exists; tfcompare does not overwrite it"),
    (["convert", "{old}", "-o", "folder", "--force"], "'folder' exists and is not a regular file"),
    (["convert", "{old}", "-o", "{old}", "--force"], "is OLD.py itself"),
    (["migrate", "{old}", "--markdown", LONG + ".md"], "is 303 bytes; a file or folder name has at most"),
    (["migrate", "{old}", "--scaffold", LONG + ".py"], "is 303 bytes; a file or folder name has at most"),
    (["pair", "{old}", "{tf2}", "--emit-case", "/proc/case.py"], "cannot write '/proc/case.py': the folder '/proc'"),
])
def test_a_bad_output_path_is_a_usage_error_before_any_script_runs(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "existing.py").write_text("# mine\n")
    (tmp_path / "folder").mkdir()
    tf1, proofs, pairs = _fake_tf1(monkeypatch), _fake_pair(monkeypatch), []
    monkeypatch.setattr("tfcompare.scripts.pair.pair_scripts", lambda *a, **k: pairs.append(a))
    before = sorted(p.name for p in tmp_path.iterdir())
    names = {"old": str(OLD), "tf2": str(PAIR_TF2), "tmp": str(tmp_path)}
    result = CliRunner().invoke(cli, [a.format(**names) for a in args])
    assert result.exit_code == 2, result.output
    assert message.format(**names) in result.output and "Traceback" not in result.output
    assert tf1 == proofs == pairs == [] and sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "existing.py").read_text() == "# mine\n"


# -- scripts that are not regular files ------------------------------------------------------------------------------

@contextlib.contextmanager
def _unblocking(fifo: Path):
    """Whatever opens `fifo` for reading gets an end of file within a few seconds, so a regression fails, not hangs."""
    stop = threading.Event()

    def writer():
        while not stop.wait(2.0):
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # only succeeds when a reader waits
            except OSError:
                pass
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _not_regular(tmp_path: Path, kind: str) -> tuple[str, str]:
    """(a path of `kind`, what the usage error says it is)."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo.py")
        return str(tmp_path / "fifo.py"), "is a FIFO (named pipe), not a regular file"
    if kind == "zero":
        return "/dev/zero", "is a character device, not a regular file"
    if kind == "folder":
        (tmp_path / "folder.py").mkdir()
        return str(tmp_path / "folder.py"), "is a directory, not a regular file"
    with open(tmp_path / "huge.py", "wb") as f:
        f.truncate((10 << 20) + 1)  # sparse: 10 MiB and a byte, no disk
    return str(tmp_path / "huge.py"), "is 10485761 bytes, more than the 10485760 bytes (10 MiB) a script may have"


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder", "huge"])
@pytest.mark.parametrize("command", [["convert", "{x}", "-o", "{tmp}/new.py"], ["run-tf1", "{x}"],
                                     ["pair", "{x}", "{tf2}"], ["pair", "{old}", "{x}"]])
def test_a_script_that_is_not_a_regular_file_is_a_usage_error(tmp_path, monkeypatch, command, kind):
    monkeypatch.chdir(tmp_path)
    path, what = _not_regular(tmp_path, kind)
    ran = _fake_tf1(monkeypatch)
    monkeypatch.setattr("tfcompare.scripts.pair.pair_scripts", lambda *a, **k: ran.append(a))
    monkeypatch.setattr("tfcompare.scripts.run_tf1.run_tf1", lambda *a, **k: ran.append(a))
    names = {"x": path, "old": str(OLD), "tf2": str(PAIR_TF2), "tmp": str(tmp_path)}
    with _unblocking(tmp_path / "fifo.py") if kind == "fifo" else contextlib.nullcontext():
        result = CliRunner().invoke(cli, [a.format(**names) for a in command])
    assert result.exit_code == 2, result.output
    assert f"'{path}' {what}" in result.output and "Traceback" not in result.output
    assert ran == [] and not (tmp_path / "new.py").exists() and not (tmp_path / "logs").exists()


# -- PEP 263: a script is read as Python reads it ------------------------------------------------------------------

def test_a_script_is_read_in_its_declared_encoding(tmp_path):
    """`read_script` (the child's, the writer's, pair's reading of a user's script) honours a coding line and a BOM;
    `run_script` runs a latin-1 script as the interpreter would."""
    from tfcompare.core.source_files import SourceError, read_script
    from tfcompare.scripts.child.user_script import run_script

    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\ns = 'r\xe9sultat'\r\n")
    assert read_script(latin) == "# -*- coding: latin-1 -*-\n# café\ns = 'résultat'\n"
    assert run_script(str(latin), [], {}).s == "résultat"
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfs = '\xc3\xa9'\n")
    assert read_script(bom) == "s = 'é'\n"
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"s = '\xe9'\n")  # latin-1 bytes, no coding line: not UTF-8
    with pytest.raises(SourceError, match="not text in its declared encoding"):
        read_script(bad)


@pytest.mark.parametrize("command", ["run-tf1", "convert", "pair"])
@pytest.mark.parametrize("content,message", [
    (b"import tensorflow as tf\nx = (\n", "is not valid Python: '(' was never closed (line 2)"),
    (bytes(range(256)) * 2, "not text in its declared encoding (binary?)"),
], ids=["syntax-error", "binary"])
def test_a_script_that_is_not_python_is_a_usage_error_naming_it(tmp_path, monkeypatch, command, content, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_bytes(content)
    args = {"run-tf1": ["run-tf1", "bad.py"], "convert": ["convert", "bad.py", "-o", "new.py"],
            "pair": ["pair", "bad.py", "bad.py"]}[command]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "'bad.py' " + message in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]  # nothing ran, nothing written


def test_a_rewrite_that_fails_on_its_own_batch_is_blamed_on_the_rewrite_not_the_users_script():
    """pair says a TF2 step failing on its own batch too is "the script's own" failure; under convert the TF2
    script is tfcompare's rewrite (an argmax's int32 output_type once dropped), never the user's code."""
    from tfcompare.scripts.convert import FAILED, ConvertResult, _verdict
    from tfcompare.scripts.pair import FAILED as PAIR_FAILED, PairResult

    error = ("the TF2 script failed before its first training step: InvalidArgumentError: Equal; run again with its "
             "own batch (without tfcompare's substitution) the step fails too (InvalidArgumentError: Equal): the "
             "failure is the script's own")
    pair = PairResult("old.py", "new.py", 3, status=PAIR_FAILED, error=error)
    status, text = _verdict(ConvertResult("old.py", "new.py"), pair)
    assert status == FAILED and "the script's own" not in text
    assert text.endswith("the failure is the rewrite's own: tfcompare's translation, not the TF1 script")


def test_tfcompares_own_failure_in_the_child_is_said_as_its_own_not_the_scripts(tmp_path):
    """A module of tfcompare's own failing to import in convert's child (a broken install): the report says
    tfcompare failed, before the TF1 script ran; never that the script trained nothing (what it said before)."""
    import subprocess
    import sys

    script = tmp_path / "s.py"
    script.write_text("print('the script ran')\n")
    code = ("import sys; sys.modules['tfcompare.scripts.convert.instanced_writer'] = None\n"
            "from tfcompare.scripts.convert.child import main\n"
            f"main([{str(script)!r}, {str(tmp_path / 'new.py')!r}, {str(tmp_path / 'r.json')!r}, 'module'])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["status"] == "failed", report
    assert report["error"].startswith("tfcompare convert failed: ModuleNotFoundError"), report["error"]
    assert "the script ran" not in proc.stdout and not (tmp_path / "new.py").exists()
