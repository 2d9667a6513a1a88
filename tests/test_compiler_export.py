"""Inside the compiler (Grappler fusion, XLA HLO) and out to deployment (SavedModel, TFLite)."""

import json

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.compiler import hlo_counts, inspect_case, parse_grappler
from tfcompare.export import TFLITE_TOLERANCE, export_case
from tfcompare.registry import CASES

HLO = """HloModule m

%fused_computation (p0: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  ROOT %tanh = f32[4]{0} tanh(f32[4]{0} %p0)
}

ENTRY %main (a: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %add = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %a)
  ROOT %fusion = f32[4]{0} fusion(f32[4]{0} %add), kind=kLoop, calls=%fused_computation
}
"""


def test_hlo_counts_entry_instructions_and_fusions():
    assert hlo_counts(HLO) == (3, 1)


@pytest.fixture(scope="module")
def inspections():
    return {c: inspect_case(CASES[c], options={"remapping": False}, repeats=3) for c in ("mlp", "cnn")}


@pytest.mark.parametrize("case", ["mlp", "cnn"])
def test_grappler_shrinks_the_graph_and_fuses(inspections, case):
    views = {g.mode: g for g in inspections[case].graphs}
    for mode in ("tf1-graph", "tf2-function"):
        assert views[mode].nodes_after < views[mode].nodes_before
        fused = views[mode].fused
        assert fused and all("Fused" in f["op"] for f in fused)
        assert any("BiasAdd" in f["absorbed"] for f in fused)
        off = views[f"{mode} [remapping=False]"]
        assert off.fused == []  # the remapper is what fuses
        assert off.nodes_after > views[mode].nodes_after  # unfused ops run as separate nodes
    if case == "cnn":
        assert any(f["op"].endswith("FusedConv2D") and f["absorbed"] == ["BiasAdd", "Relu"]
                   for f in views["tf2-function"].fused)
    hlo = inspections[case].hlo
    assert hlo.fusions > 0 and hlo.instructions_after < hlo.instructions_before
    assert set(inspections[case].step_s) == {"tf1-graph", "tf2-function", "tf2-xla", "tf1-graph [remapping=False]",
                                             "tf2-function [remapping=False]", "tf2-xla [remapping=False]"}


def test_grappler_option_parsing():
    assert parse_grappler({"remapping": "off", "constant_folding": "ON"}) == {"remapping": False,
                                                                              "constant_folding": True}
    with pytest.raises(ValueError, match="unknown Grappler option 'remap'"):
        parse_grappler({"remap": "off"})
    bad = CliRunner().invoke(cli, ["inspect", "mlp", "--grappler", "remapping=maybe"])
    assert bad.exit_code == 2 and "must be on, off, true or false" in bad.output
    assert CliRunner().invoke(cli, ["inspect", "nope"]).exit_code == 2


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
    done = CliRunner().invoke(cli, ["export", "linear", "--to", str(dest), "--no-tflite", "--overwrite"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in dest.iterdir()) == ["report.json", "savedmodel-tf1", "savedmodel-tf2"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    unwritable = CliRunner().invoke(cli, ["export", "linear", "--to", str(blocker / "sub" / "out")])
    assert unwritable.exit_code == 2 and "cannot write to" in unwritable.output
    assert CliRunner().invoke(cli, ["export", "nope"]).exit_code == 2
