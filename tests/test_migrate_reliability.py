"""`tfcompare migrate` on inputs that are not ordinary source files, and on output paths it cannot write
(issue #25 items 6, 7, 9 and 10): every one ends as a finding or a usage error naming the path and the reason,
never a traceback, a hang or an unbounded read; a failed command writes nothing."""

import json
import os
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.files import TEMP_MARKER
from tfcompare.tools.migrate import migrate
from tfcompare.tools.migrate.sources import MAX_BYTES

_TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 3])\ny = tf.log(x)\n"


def _migrate(*args):
    result = CliRunner().invoke(cli, ["migrate", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _unparsable(result) -> dict:
    """{file name: the note of its unparsable finding}, from the JSON report."""
    doc = json.loads(result.stdout)
    return {Path(f["path"]).name: x["note"] for f in doc["files"] for x in f["findings"] if x["class"] == "unparsable"}


def _special(tmp_path: Path, kind: str) -> Path:
    """A path of the given kind, made for the test (or a system path that is one)."""
    p = tmp_path / f"{kind}.py"
    if kind == "fifo":
        os.mkfifo(p)  # opening it for reading would block until a writer came
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(p))
        s.close()
    elif kind == "zero-link":
        p.symlink_to("/dev/zero")
    elif kind == "huge":
        p.write_text("x = 1\n" * (MAX_BYTES // 6 + 1))
    elif kind == "binary":
        p.write_bytes(bytes(range(256)) * 4)
    elif kind == "nul":
        p.write_bytes(b"import tensorflow as tf\n\0\n")
    elif kind == "deep":
        p.write_text("x = " + "+".join(["1"] * 200_000) + "\n")
    elif kind == "dangling":
        p.symlink_to(tmp_path / "gone.py")
    elif kind == "loop":
        p.symlink_to(p)
    else:
        return Path(kind)
    return p


@pytest.mark.parametrize("kind,reason", [
    ("/dev/zero", "a character device, not a regular file"),
    ("zero-link", "a character device, not a regular file"),
    ("/dev/stdin", "not a regular file"),
    ("/proc/self/mem", "cannot read: Input/output error"),
    ("fifo", "a FIFO (named pipe), not a regular file"),
    ("socket", "a socket, not a regular file"),
    ("huge", f"more than the {MAX_BYTES} bytes (1 MiB) read per file"),
    ("binary", "not text in its declared encoding"),
    ("nul", "holds NUL bytes"),
    ("deep", "nested too deeply for Python's parser"),
])
def test_a_file_that_cannot_be_read_is_its_own_unparsable_finding(tmp_path, kind, reason):
    good = tmp_path / "good.py"
    good.write_text(_TF1)
    special = _special(tmp_path, kind)
    result = _migrate(good, special, "--no-upgrade", "--json", "--fail-on", "behaviour")
    assert result.exit_code == 1, result.output  # the partial scan fails a CI gate
    found = _unparsable(result)
    assert list(found) == [special.name] and reason in found[special.name], found
    doc = json.loads(result.stdout)
    assert [len(f["findings"]) for f in doc["files"]][0] >= 3  # the readable file was still scanned


def test_files_inside_a_folder_the_same_and_an_unlistable_folder_is_never_skipped(tmp_path, monkeypatch):
    root = tmp_path / "src"
    (root / "deep" / "locked").mkdir(parents=True)
    (root / "ok.py").write_text(_TF1)
    (root / "deep" / "locked" / "hidden.py").write_text(_TF1)
    (root / "z.py").symlink_to("/dev/zero")
    (root / "dangling.py").symlink_to(root / "gone.py")
    (root / "loop").symlink_to(root)  # a folder link back up the tree is walked once
    locked = root / "deep" / "locked"
    locked.chmod(0)
    real_scandir = os.scandir
    if os.geteuid() == 0:  # root lists any folder: make this one fail as it does for everyone else
        def scandir(path="."):
            if isinstance(path, (str, os.PathLike)) and os.fspath(path) == str(locked):
                raise PermissionError(13, "Permission denied", str(locked))
            return real_scandir(path)
        monkeypatch.setattr(os, "scandir", scandir)
    try:
        result = _migrate(root, "--no-upgrade", "--json", "--fail-on", "removed")
    finally:
        locked.chmod(0o755)
    assert result.exit_code == 1, result.output
    found = _unparsable(result)
    assert sorted(found) == ["dangling.py", "locked", "z.py"], found
    assert "cannot list this folder: Permission denied" in found["locked"]
    assert "a character device" in found["z.py"] and "No such file or directory" in found["dangling.py"]
    assert [Path(f["path"]).name for f in json.loads(result.stdout)["files"]].count("ok.py") == 1


def test_a_latin_1_file_with_a_coding_line_is_read_as_python_reads_it(tmp_path):
    src = tmp_path / "latin.py"
    text = "# -*- coding: latin-1 -*-\n# Größe\nimport tensorflow as tf\ny = tf.log(2.0)\n"
    src.write_bytes(text.encode("latin-1"))
    result = _migrate(src, "--no-upgrade", "--json")
    assert result.exit_code == 0 and _unparsable(result) == {}
    assert [f["symbol"] for f in json.loads(result.stdout)["files"][0]["findings"]] == ["import tensorflow", "tf.log"]


@pytest.mark.parametrize("where,reason", [
    ("/proc/tfcompare-report.md", "cannot write '/proc/tfcompare-report.md': "),
    ("{tmp}/missing/report.md", "its folder '{tmp}/missing' does not exist"),
    ("{tmp}/dangling.md", "is a symbolic link (to '{tmp}/nowhere.md'); it is never written through"),
    ("{tmp}/taken.md", "exists; it is never overwritten"),
])
def test_markdown_that_cannot_be_written_is_a_usage_error_naming_path_and_reason(tmp_path, where, reason):
    src = tmp_path / "a.py"
    src.write_text(_TF1)
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "taken.md").write_text("mine")
    before = sorted(os.listdir(tmp_path))
    result = _migrate(src, "--no-upgrade", "--markdown", where.format(tmp=tmp_path))
    assert result.exit_code == 2 and "'--markdown'" in result.output, result.output
    assert reason.format(tmp=tmp_path) in result.output and "Traceback" not in result.output
    assert sorted(os.listdir(tmp_path)) == before and (tmp_path / "taken.md").read_text() == "mine"


def test_a_bad_scaffold_name_fails_before_the_markdown_is_written(tmp_path):
    src = tmp_path / "a.py"
    src.write_text(_TF1)
    result = _migrate(src, "--no-upgrade", "--scaffold", tmp_path / "out.txt", "--markdown", tmp_path / "m.md")
    assert result.exit_code == 2 and "must end in .py" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_tf_upgrade_v2_crashing_on_one_file_is_that_files_note_and_leaves_no_temp_files(tmp_path, monkeypatch):
    """Issue #26 item 1 and #25 item 10: pasta's AnnotationError on one file (an f-string `{x=}`) is that file's
    note naming the error; the other file is still compared; nothing is left in TMPDIR."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # let tempfile read the TMPDIR set here
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = tmp / f"tfcompare-migrate-{gone.pid}-left"  # left by a killed run: its process has ended
    left.mkdir()
    (left / TEMP_MARKER).write_text(f"{gone.pid} 0\n")
    (tmp / "tfcompare-migrate-1-running").mkdir()  # a run still going (pid 1 is alive): not touched
    (tmp / f"tfcompare-migrate-{gone.pid}-mine").mkdir()  # named alike, but no marker: the user's, kept
    (tmp_path / "crash.py").write_text(_TF1 + 'print(f"{x=}")\n')
    (tmp_path / "fine.py").write_text(_TF1)
    report = migrate([tmp_path / "crash.py", tmp_path / "fine.py"])
    doc = {Path(f["path"]).name: f for f in report.to_json()["files"]}
    assert "AnnotationError" in doc["crash.py"]["upgrade_v2"] and doc["fine.py"]["upgrade_v2"] is None
    assert {f["symbol"]: f["upgrade_v2"] for f in doc["fine.py"]["findings"]}["tf.placeholder"] == "renamed"
    assert {f["symbol"]: f["upgrade_v2"] for f in doc["crash.py"]["findings"]}["tf.placeholder"] == "not run"
    assert sorted(os.listdir(tmp)) == ["tfcompare-migrate-1-running", f"tfcompare-migrate-{gone.pid}-mine"]
    text = report.text()
    assert "tf_upgrade_v2 left out 1 file(s)" in text and "crash.py\n  note: tf_upgrade_v2 left this file out: " \
        "it crashed on this file: AnnotationError" in text
