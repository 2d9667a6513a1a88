"""Out to deployment: SavedModel (TF2 and TF1) and TFLite, reloaded without the model code."""

import json

from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.tools.export import TFLITE_TOLERANCE, export_case
from tfcompare.registry import CASES


def test_export_reloads_without_model_code_and_quantizes(tmp_path):
    report = export_case(CASES["mlp"], tmp_path / "mlp")
    formats = {f.format: f for f in report.formats}
    assert report.ok, [f.error for f in report.formats]
    assert report.reload_imported == []  # the clean process never imported legacy_graphs/eager_models/tfcompare
    for name in ("savedmodel-tf2", "savedmodel-tf1"):
        assert formats[name].max_abs_err <= 1e-5 and formats[name].load_s > 0 and formats[name].steady_s > 0
    assert formats["tflite-dynamic-range"].size_bytes < formats["tflite-float"].size_bytes / 2
    assert formats["tflite-float"].max_rel_err <= TFLITE_TOLERANCE["tflite-float"]
    assert formats["tflite-dynamic-range"].max_rel_err <= TFLITE_TOLERANCE["tflite-dynamic-range"]
    assert (tmp_path / "mlp" / "savedmodel-tf2" / "saved_model.pb").exists()
    assert (tmp_path / "mlp" / "savedmodel-tf1" / "saved_model.pb").exists()
    assert json.loads((tmp_path / "mlp" / "report.json").read_text())["ok"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_variable_length_export_checks_two_more_lengths(tmp_path):
    report = export_case(CASES["rnn"], tmp_path / "rnn", tflite=False)
    assert report.ok
    assert [b["x"][1] for b in report.batch_shapes] == [12, 6, 24]


def test_export_refuses_a_non_empty_folder_and_overwrites_on_request(tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    refused = CliRunner().invoke(cli, ["export", "linear", "--to", str(dest), "--no-tflite"])
    assert refused.exit_code == 2 and "exists and is not empty; pass --overwrite" in refused.output
    assert [p.name for p in dest.iterdir()] == ["keep.txt"]
    not_ours = CliRunner().invoke(cli, ["export", "linear", "--to", str(dest), "--no-tflite", "--overwrite"])
    assert not_ours.exit_code == 2 and "is not a tfcompare export (it has no .tfcompare-export file)" in not_ours.output
    assert [p.name for p in dest.iterdir()] == ["keep.txt"]  # --overwrite never deletes a folder we did not write
    ours = tmp_path / "ours"
    assert CliRunner().invoke(cli, ["export", "linear", "--to", str(ours), "--no-tflite"]).exit_code == 0
    done = CliRunner().invoke(cli, ["export", "linear", "--to", str(ours), "--no-tflite", "--overwrite"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in ours.iterdir()) == [".tfcompare-export", "report.json", "savedmodel-tf1",
                                                     "savedmodel-tf2"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".ours.")] == []  # no temporary folder left
    blocker = tmp_path / "file"
    blocker.write_text("x")
    unwritable = CliRunner().invoke(cli, ["export", "linear", "--to", str(blocker / "sub" / "out")])
    assert unwritable.exit_code == 2 and "cannot write to" in unwritable.output
    assert CliRunner().invoke(cli, ["export", "nope"]).exit_code == 2
